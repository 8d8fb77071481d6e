"""The texts compaction writes: identifiers for the retention check, one-line stubs, exchange
headers and summaries, the running summary and the reference index.

Everything here is deterministic and offline: the same items always give the same texts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from swetui.engine.items import ContextItem, ItemKind
from swetui.engine.payloads import SummaryFacts

HEADER_TOKENS = 12
EXCHANGE_SUMMARY_TOKENS = 120
RUNNING_SUMMARY_TOKENS = 300

_TOKEN = re.compile(r"[\w./-]+", re.ASCII)
_SEGMENT = re.compile(r"[A-Za-z_]\w*\Z")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_MARKED = re.compile(r"[_./]|[A-Za-z][A-Z]").search
_IDENT_CACHE: dict[str, frozenset[str]] = {}
_IDENT_CACHE_MAX = 20_000
_ITEM_CACHE: dict[tuple[str, str], frozenset[str]] = {}
_ERRORS_CACHE: dict[tuple[str, str, bool], tuple[str, ...]] = {}
_TOKEN_CACHE: dict[str, tuple[str, ...]] = {}
"""Raw token → the identifiers it stands for (mostly none): one C-level lookup per token."""
_TOKEN_CACHE_MAX = 200_000
_NONE: tuple[str, ...] = ()

Counter = Callable[[str], int]

ERROR_LINE_CHARS = 300
"""An error line longer than this is kept to this many characters."""
FILE_TOOLS = frozenset({"read_file", "grep", "glob", "list_dir"})
"""Tools whose output is the workspace's own text: its lines are code, not errors."""
_ERROR_LINE = re.compile(
    r"""^(?:E\s+)?(?:
      (?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Failure|Interrupt|Exit|Warning)
          (?::\s.*|\s*)$                                   # KeyError: 'api_key'
    | (?:FAILED|ERROR)\s+\S+::\S.*                        # FAILED tests/t.py::test_x - …
    | \S+::\S+\s+(?:FAILED|ERROR)\b.*                      # tests/t.py::test_x FAILED
    | \S+?(?::\d+){1,2}:\s*(?:fatal\s+)?error\b.*          # src/a.c:12:5: error: …
    | \S+?:\d+:\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b.*  # src/a.py:12: KeyError
    | \S+?\(\d+,\d+\):\s*error\b.*                       # src/a.ts(3,7): error TS2322: …
    | error(?:\[\w+\])?:\s.*                               # error[E0308]: mismatched types
    | \s*-->\s*\S+:\d+(?::\d+)?                            #   --> src/main.rs:4:5
    | \S+\.go:\d+:\d+:\s.*                                 # ./main.go:12:2: undefined: x
    | panic:\s.*
    )""", re.VERBOSE)


_PYTEST_E = re.compile(r"^E\s+")


def error_lines(text: str) -> list[str]:
    """The error lines of a tool's output, in order, each once: exceptions with their
    message, failing test ids, compiler errors with their path and line."""
    found: dict[str, None] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line and _ERROR_LINE.match(line):
            found[_PYTEST_E.sub("", line)[:ERROR_LINE_CHARS]] = None
    return list(found)


def item_errors(item: ContextItem) -> tuple[str, ...]:
    """The error lines a folded item must keep visible (tool outputs that are not file
    text; a failed call's first line when it shows no recognisable error line);
    remembered per item and content."""
    if item.kind is not ItemKind.TOOL_CALL:
        return ()
    key = (item.id, item.content_hash or item.content, item.call.is_error)
    hit = _ERRORS_CACHE.get(key)
    if hit is None:
        if len(_ERRORS_CACHE) >= _IDENT_CACHE_MAX:
            _ERRORS_CACHE.clear()
        hit = _ERRORS_CACHE[key] = tuple(_item_errors(item))
    return hit


def _item_errors(item: ContextItem) -> list[str]:
    name = item.call.name or "tool"
    lines = [] if name in FILE_TOOLS and not item.call.is_error else \
        error_lines(item.content)
    if not lines and item.call.is_error:
        first = first_line(item.content, ERROR_LINE_CHARS)
        lines = [first] if first else []
    return lines


def _classify(token: str) -> tuple[str, ...]:
    """The identifiers one raw token stands for (usually none, or the token itself)."""
    token = token.strip("./-")
    if not token or not (token[0].isalpha() or token[0] == "_"):
        return ()
    if "/" in token:
        return (token,) if any(ch.isalpha() for ch in token) else ()
    found: list[str] = []
    for part in token.split("-"):
        part = part.strip(".")
        if not part:
            continue
        if "." in part:
            segments = part.split(".")
            if all(_SEGMENT.match(s) for s in segments) and max(map(len, segments)) > 1:
                found.append(part)
                continue
            found.extend(s for s in segments if _is_word_identifier(s))
        elif _is_word_identifier(part):
            found.append(part)
    return tuple(found)


def _is_word_identifier(word: str) -> bool:
    if not _SEGMENT.match(word):
        return False
    if "_" in word:
        return any(ch.isalpha() for ch in word)
    return _CAMEL.search(word) is not None


def clear_caches() -> None:
    """Forget memoised identifiers (benchmarks measure a cold start with this)."""
    _IDENT_CACHE.clear()
    _TOKEN_CACHE.clear()
    _ITEM_CACHE.clear()
    _ERRORS_CACHE.clear()


def identifiers(text: str) -> set[str]:
    """File paths and code identifiers (snake_case, CamelCase, dotted names) in `text`:
    what a compaction must keep visible somewhere in headers, summaries or the index."""
    tokens = set(_TOKEN.findall(text))
    new = tokens.difference(_TOKEN_CACHE)
    if new:
        if len(_TOKEN_CACHE) + len(new) > _TOKEN_CACHE_MAX:
            _TOKEN_CACHE.clear()
            new = tokens
        for token in new:  # plain words (no `_./` nor camel hump) never qualify
            _TOKEN_CACHE[token] = _classify(token) if _MARKED(token) else _NONE
    # set difference, map, filter and union keep the per-token work in C
    return set().union(*filter(None, map(_TOKEN_CACHE.__getitem__, tokens)))


def cached_identifiers(text: str, digest: str) -> frozenset[str]:
    """`identifiers(text)` remembered by content hash (contents are immutable per hash)."""
    hit = _IDENT_CACHE.get(digest)
    if hit is None:
        if len(_IDENT_CACHE) >= _IDENT_CACHE_MAX:
            _IDENT_CACHE.clear()
        hit = _IDENT_CACHE[digest] = frozenset(identifiers(text))
    return hit


def argument_text(item: ContextItem) -> str:
    """A tool call's argument values as plain text (paths, patterns, edited code)."""
    arguments = item.call.arguments
    return " ".join(v if isinstance(v, str) else json.dumps(v) for v in arguments.values())


def item_identifiers(item: ContextItem) -> frozenset[str]:
    """Identifiers of everything an item sends: its content, call arguments and path
    (remembered per item and content: an item's arguments and path never change)."""
    key = (item.id, item.content_hash or item.content)
    hit = _ITEM_CACHE.get(key)
    if hit is not None:
        return hit
    found = cached_identifiers(item.content, item.content_hash or item.id + item.content)
    extra = (argument_text(item) if item.kind is ItemKind.TOOL_CALL else "") + " " + (
        item.source.path or "")
    if extra.strip():
        found = found | cached_identifiers(extra, extra)
    if len(_ITEM_CACHE) >= _IDENT_CACHE_MAX:
        _ITEM_CACHE.clear()
    _ITEM_CACHE[key] = found
    return found


def first_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of `text`, cut to `limit` characters."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


def call_target(item: ContextItem) -> str:
    """The one argument that says what a tool call was about (path, pattern, command)."""
    arguments = item.call.arguments
    for key in ("path", "pattern", "command", "id", "query"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return first_line(value, 60)
    return item.source.path or ""


def tool_stub(item: ContextItem) -> str:
    """The one-line result sent instead of a folded tool call's output, with its recall id."""
    name = item.call.name or "tool"
    result = item.call.summary or first_line(item.content, 60) or "(no output)"
    if item.call.is_error:
        errors = item_errors(item)
        shown = errors[-1] if errors else first_line(str(result), 60)
        return f"{name} {call_target(item)} → failed: {shown} [{item.id}]"
    return f"{name} {call_target(item)} → {first_line(str(result), 60)} [{item.id}]"


def message_stub(item: ContextItem) -> str:
    """A folded message's one line (what the inspector shows)."""
    who = "you" if item.kind is ItemKind.USER_MESSAGE else "agent"
    return f"[folded] {who}: {first_line(item.content, 70) or item.title}"


def file_stub(item: ContextItem, turn: int) -> str:
    return f"retrieved for turn {turn}: {item.source.path or item.title}"


def fit(text: str, limit: int, count: Counter) -> str:
    """`text` cut (at a word, with an ellipsis) so that it costs at most `limit` tokens."""
    tokens = count(text)
    while tokens > limit and text:
        keep = max(0, int(len(text) * limit / tokens * 0.9) - 1)
        cut = text[:keep]
        if " " in cut[len(cut) // 2:]:
            cut = cut[: cut.rfind(" ")]
        text = cut.rstrip(" ,;:") + "…" if cut else ""
        tokens = count(text)
    return text


def gist(text: str, words: int = 24) -> str:
    """The first `words` words of a message, on one line (no closing full stop)."""
    parts = text.split()
    if len(parts) > words:
        return " ".join(parts[:words]) + " …"
    return " ".join(parts).rstrip(".")


def exchange_header(turn: int, user_text: str, count: Counter) -> str:
    """≤ 12 tokens: the turn (its recall id) and the start of what the user asked."""
    words = user_text.split()[:12] or ["(no request)"]
    while True:
        text = f"t{turn}: {' '.join(words)}"
        tokens = count(text)
        if tokens <= HEADER_TOKENS:
            return text
        if len(words) <= 1:
            return fit(text, HEADER_TOKENS, count)
        words = words[: min(len(words) - 1, max(1, len(words) * HEADER_TOKENS // tokens))]


def exchange_summary(turn: int, items: Iterable[ContextItem], count: Counter) -> str:
    """≤ 120 tokens: request, actions (tool and target), edits, errors and the outcome."""
    items = list(items)
    users = [i for i in items if i.kind is ItemKind.USER_MESSAGE]
    answers = [i for i in items if i.kind is ItemKind.ASSISTANT_MESSAGE and i.content.strip()]
    actions: dict[str, list[str]] = {}
    errors: list[str] = []
    for item in items:
        if item.kind is not ItemKind.TOOL_CALL:
            continue
        name = item.call.name or "tool"
        target = call_target(item)
        if target and target not in actions.setdefault(name, []):
            actions[name].append(target)
        errors.extend(f"{name} {target}: {line}" for line in item_errors(item))
    parts = [f"t{turn} summary:"]
    if users:
        parts.append(f"asked: {gist(users[0].content, 20)}.")
    if actions:
        parts.append("did: " + "; ".join(f"{name} {', '.join(targets)}".strip()
                                         for name, targets in actions.items()) + ".")
    if errors:
        parts.append("errors: " + "; ".join(errors[-2:]) + ".")
    if answers:
        parts.append(f"outcome: {gist(answers[-1].content, 24)}")
    return fit(" ".join(parts), EXCHANGE_SUMMARY_TOKENS, count)


ERRORS_GROUP = " errors"
"""The suffix of an index group that holds a turn's error lines (whole lines, not names)."""


def render_index(groups: dict[str, list[str]], count: Counter | None = None) -> str:
    """The reference index: every path, identifier and error line of folded turns, grouped
    by the turn (and file) where it was seen, so the model can find and recall it."""
    lines = ["Reference index of folded turns (paths, identifiers and errors; `recall` brings "
             "any exchange back):"]
    for where in sorted(groups, key=_group_order):
        names = groups[where]
        if names and where.endswith(ERRORS_GROUP):
            lines.append(f"{where}: " + " | ".join(names))
        elif names:
            lines.append(f"{where}: {' '.join(names)}")
    return "\n".join(lines)


def _group_order(where: str) -> tuple[int, str]:
    """Groups by turn number first (t2 before t10), then by name."""
    head = where.split(" ", 1)[0]
    return (int(head[1:]) if head[:1] == "t" and head[1:].isdigit() else 0, where)


_EDIT_TOOLS = frozenset({"edit_file", "write_file"})


def _recent_unique(values: Iterable[str], limit: int) -> list[str]:
    """The last `limit` distinct values, most recent first."""
    seen: list[str] = []
    for value in reversed(list(values)):
        if value and value not in seen:
            seen.append(value)
        if len(seen) >= limit:
            break
    return seen


def summary_facts(previous: SummaryFacts,
                  exchanges: list[tuple[int, list[ContextItem]]]) -> SummaryFacts:
    """Merge the facts of newly folded exchanges into the running summary's facts."""
    facts = previous.model_dump()
    achievements = list(previous.achievements)
    files = list(previous.files)
    functions = list(previous.functions)
    for turn, items in exchanges:
        facts["first_turn"] = min(_or(facts["first_turn"], turn), turn)
        facts["last_turn"] = max(_or(facts["last_turn"], turn), turn)
        facts["folded"] += 1
        for item in items:
            if item.kind is ItemKind.USER_MESSAGE and item.content.strip():
                facts["objective"] = facts["objective"] or gist(item.content, 30)
                facts["latest"] = gist(item.content, 30)
            elif item.kind is ItemKind.ASSISTANT_MESSAGE and item.content.strip():
                facts["next_steps"] = gist(item.content.strip().split("\n")[-1], 30)
            elif item.kind is ItemKind.TOOL_CALL:
                name = item.call.name or "tool"
                target = call_target(item)
                if item.source.path:
                    files.append(item.source.path)
                if item.call.is_error:
                    errors = item_errors(item) or ("(no output)",)
                    facts["last_error"] = f"t{turn} {name} {target}: {errors[-1]}"
                elif name in _EDIT_TOOLS:
                    achievements.append(f"t{turn} {name} {target}")
                    new = str(item.call.arguments.get("new", ""))
                    functions.extend(sorted(identifiers(new)))
                elif name == "bash":
                    achievements.append(f"t{turn} ran {target}")
    facts["achievements"] = achievements[-12:]
    facts["files"] = _recent_unique(files, 12)[::-1]
    facts["functions"] = _recent_unique(functions, 16)[::-1]
    return SummaryFacts.model_validate(facts)


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def render_running_summary(facts: SummaryFacts, count: Counter) -> str:
    """≤ 300 tokens: narrative, objective, achievements, active files/functions, next steps.
    Over budget, the lists lose their oldest entries first, so every section survives."""
    lists = {"achievements": list(facts.achievements)[-6:], "files": list(facts.files)[-8:],
             "functions": list(facts.functions)[-10:]}
    while True:
        text = _render_summary(facts, lists)
        longest = max(lists, key=lambda key: len(lists[key]))
        if count(text) <= RUNNING_SUMMARY_TOKENS or not lists[longest]:
            return fit(text, RUNNING_SUMMARY_TOKENS, count)
        lists[longest].pop(0)


def _render_summary(facts: SummaryFacts, lists: dict[str, list[str]]) -> str:
    first = "?" if facts.first_turn is None else facts.first_turn
    last = "?" if facts.last_turn is None else facts.last_turn
    lines = [f"Turns {first}–{last} are folded "
             f"({facts.folded} exchanges); `recall` brings any back."]
    if facts.objective:
        lines.append(f"Objective: {facts.objective}")
    if facts.focus:
        lines.append(f"Focus requested: {facts.focus}")
    if facts.latest and facts.latest != facts.objective:
        lines.append(f"Latest folded request: {facts.latest}")
    if lists["achievements"]:
        lines.append("Achievements: " + "; ".join(lists["achievements"][::-1]))
    if lists["files"]:
        lines.append("Active files: " + " ".join(lists["files"][::-1]))
    if lists["functions"]:
        lines.append("Functions touched: " + " ".join(lists["functions"][::-1]))
    if facts.last_error:
        lines.append(f"Last error: {facts.last_error}")
    if facts.next_steps:
        lines.append(f"Next steps: {facts.next_steps}")
    return "\n".join(lines)
