"""Understanding plain requests for the offline responder: text → tool calls.

Deliberately small and predictable: a handful of verbs, quoted terms kept intact, clauses
joined by "and" / "then" / ";" giving several calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_QUOTED = re.compile(r'"([^"]*)"|`([^`]*)`|(?<![\w])\'([^\']*)\'(?![\w])|“([^”]*)”')
_SLOT = re.compile(r"\x00(\d+)\x00")
_SPLIT = re.compile(r"\s*(?:;|,?\s*\band then\b|,?\s*\bthen\b|,?\s*\band\b)\s*", re.IGNORECASE)
_EXTENSIONLESS = {"makefile", "dockerfile", "license", "readme", "procfile", "gemfile",
                  "rakefile", "justfile", "containerfile", "vagrantfile", "copying"}
_FILLER = {"the", "a", "me", "all", "of", "in", "under", "inside", "files", "file",
           "directory", "dir", "folder", "contents", "content", "entries", "please", "what",
           "is", "are", "here", "current", "this", "top-level", "root", "level"}


@dataclass(frozen=True)
class Intent:
    """One tool call the responder decided on, and why (for its visible reasoning)."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


def understand(text: str) -> list[Intent]:
    """The tool calls a plain request asks for, in order; empty when not understood."""
    quoted: list[str] = []

    def hide(match: re.Match[str]) -> str:
        quoted.append(next(group for group in match.groups() if group is not None))
        return f"\x00{len(quoted) - 1}\x00"

    # Quoted terms may contain "and" or verbs; hide them before splitting and matching.
    masked = _QUOTED.sub(hide, text.strip())
    intents: list[Intent] = []
    for clause in _SPLIT.split(masked):
        intent = _clause(clause.strip(), quoted)
        if intent is not None and intent not in intents:
            intents.append(intent)
    return intents


def _clause(clause: str, quoted: list[str]) -> Intent | None:
    if not clause:
        return None
    for parse in (_replace, _run, _search, _listing, _read):
        intent = parse(clause, quoted)
        if intent is not None:
            return intent
    return None


def _unquote(token: str, quoted: list[str]) -> str:
    return _SLOT.sub(lambda m: quoted[int(m.group(1))], token)


_Q = r"(\x00\d+\x00)"
_PATH = r"(\x00\d+\x00|[\w./~@+-]+)"


def _clean_path(token: str, quoted: list[str]) -> str | None:
    """A path from a token, or None when the token does not look like one."""
    if _SLOT.fullmatch(token):
        return _unquote(token, quoted).strip() or None
    token = token.rstrip(",;:!?)")
    if token.endswith(".") and len(token) > 1 and not token.endswith(".."):
        token = token[:-1]  # the end of a sentence, not of the name
    if not token:
        return None
    if "/" in token or "." in token or token.lower() in _EXTENSIONLESS:
        return token
    return None


def _replace(clause: str, quoted: list[str]) -> Intent | None:
    match = re.search(
        rf"\b(?:replace|change|substitute)\s+{_Q}\s+(?:with|by|to|into)\s+{_Q}\s+"
        rf"(?:in|inside|within)\s+(?:the\s+)?(?:file\s+)?{_PATH}", clause, re.IGNORECASE)
    if not match:
        return None
    path = _clean_path(match.group(3), quoted) or _unquote(match.group(3), quoted)
    old, new = _unquote(match.group(1), quoted), _unquote(match.group(2), quoted)
    return Intent("edit_file", {"path": path, "old": old, "new": new},
                  f"replace {old!r} with {new!r} in `{path}`")


def _run(clause: str, quoted: list[str]) -> Intent | None:
    match = re.search(rf"\b(?:run|execute|exec)\s+(?:the\s+)?(?:command\s+)?{_Q}",
                      clause, re.IGNORECASE)
    if not match:
        return None
    command = _unquote(match.group(1), quoted).strip()
    if not command:
        return None
    return Intent("bash", {"command": command}, f"run `{command}` in the workspace")


def _search(clause: str, quoted: list[str]) -> Intent | None:
    match = re.search(
        r"\b(?:find|grep|search|look)\b(?:\s+(?:for|up))?"
        r"(?:\s+(?:the\s+)?(?:term|word|string|text|pattern|occurrences\s+of|uses\s+of))?"
        rf"\s+(\x00\d+\x00|[^\s\x00]+)(?:\s+(?:in|under|inside)\s+{_PATH})?",
        clause, re.IGNORECASE)
    if not match:
        return None
    term_token, where = match.group(1), match.group(2)
    if _SLOT.fullmatch(term_token):
        term = _unquote(term_token, quoted)
    else:
        term = term_token.rstrip(".,;:!?")
        if term.lower() in {"files", "file", "me", "the", "a", "it"}:
            return None
        if any(ch in term for ch in "*?["):  # an unquoted wildcard means file names
            return Intent("glob", {"pattern": term}, f"find files matching `{term}`")
    if not term:
        return None
    arguments: dict[str, Any] = {"pattern": re.escape(term)}
    path = _clean_path(where, quoted) if where else None
    if path is None and where and not _SLOT.fullmatch(where):
        path = where.rstrip(".,;:!?") or None  # "in src": a directory needs no dot
    if path:
        arguments["path"] = path
    place = f" in `{path}`" if path else ""
    return Intent("grep", arguments, f"search the files{place} for `{term}`")


def _listing(clause: str, quoted: list[str]) -> Intent | None:
    lowered = clause.lower()
    if re.search(r"\b(?:ls|list|tree)\b", lowered):
        rest = re.split(r"\b(?:ls|list|tree)\b", clause, maxsplit=1, flags=re.IGNORECASE)[1]
    else:
        match = re.search(r"\b(?:show|display|what)\b(?:\s+(?:me|are|is))?(?:\s+the)?\s+"
                          r"(?:files|directory|dir|folder|contents)\b(.*)", clause, re.IGNORECASE)
        if not match:
            return None
        rest = match.group(1)
    path = None
    for token in rest.split():
        if _SLOT.fullmatch(token):
            path = _unquote(token, quoted)
            break
        word = token.strip(".,;:!?").lower()
        if word and word not in _FILLER:
            path = token.rstrip(",;:!?")
            if len(path) > 1:
                path = path.rstrip(".") or path
            break
    arguments = {"path": path} if path and path not in (".", "./") else {}
    where = f"`{path}`" if arguments else "the workspace root"
    return Intent("list_dir", arguments, f"list {where}")


def _read(clause: str, quoted: list[str]) -> Intent | None:
    match = re.search(
        r"\b(?:read|show|open|cat|view|display|print)\b(?:\s+me)?(?:\s+(?:the|what'?s\s+in))?"
        r"(?:\s+(?:file|contents?\s+of|source\s+of))?(?:\s+the)?"
        rf"\s+{_PATH}(?:\s+(?:lines?)\s+(\d+)\s*(?:-|to|\.\.)\s*(\d+))?",
        clause, re.IGNORECASE)
    if not match:
        return None
    path = _clean_path(match.group(1), quoted)
    if path is None:
        return None
    arguments: dict[str, Any] = {"path": path}
    if match.group(2) and match.group(3):
        first, last = int(match.group(2)), int(match.group(3))
        if first >= 1 and last >= first:
            arguments.update(offset=first, limit=last - first + 1)
    return Intent("read_file", arguments, f"read `{path}`")
