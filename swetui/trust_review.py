"""What a repository's shipped files would change, told so the user can decide to trust them.

Every setting a file makes is listed (nothing it sets goes unmentioned), and everything the
repository wrote is shown with control and invisible characters made visible: a pattern
that hides itself with an escape sequence or a right-to-left override would otherwise fool
the very person deciding.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swetui.config import ApprovalRule, ConfigError, parse_toml, validate
from swetui.text import terminal_safe
from swetui.trust import CONFIG, MCP, ShippedFile, TrustState, TrustStore

SHORT = 40
NOTES = {
    "mode": {"auto": "edits and commands run without asking",
             "auto-edit": "edits apply without asking"},
    "sandbox": {"off": "commands run without the kernel sandbox"},
    "sandbox_network": {"true": "commands reach the network"},
}


def visible(text: str) -> str:
    """`text` on one line with control, format and line-separator characters escaped."""
    return terminal_safe(text, newlines=False, format_chars=True)


def _value(value: Any, limit: int | None = None) -> str:
    shown = visible(json.dumps(value, ensure_ascii=False) if not isinstance(value, str)
                    else value)
    if limit is not None and len(shown) > limit:
        shown = shown[:limit - 1] + "…"
    return shown


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class Review:
    """One shipped file: a one-line summary, every effect, and why it cannot be trusted."""

    file: ShippedFile
    summary: str
    effects: tuple[str, ...] = ()
    error: str | None = None

    @property
    def name(self) -> str:
        return self.file.name


def _config_review(shipped: ShippedFile, content: bytes) -> Review:
    path = shipped.path
    try:
        data = parse_toml(path, content)
        validate(path, data, content.decode("utf-8"))
    except ConfigError as exc:
        return Review(shipped, f"invalid: {visible(str(exc))}", error=visible(str(exc)))
    summary: list[str] = []
    effects: list[str] = []
    for key, value in data.items():
        if key == "approval_rules":
            continue
        shown = json.dumps(value) if isinstance(value, bool) else str(value)
        note = NOTES.get(key, {}).get(shown)
        summary.append(f"{key} = {_value(value, SHORT)}")
        effects.append(f"{key} = {_value(value)}" + (f"  ({note})" if note else ""))
    rules = [ApprovalRule.model_validate(rule) for rule in data.get("approval_rules", [])]
    for action in ("allow", "deny"):
        chosen = [rule for rule in rules if rule.action == action]
        if chosen:
            summary.append(_plural(len(chosen), f"{action} rule"))
        for rule in chosen:
            why = ("runs without asking" if action == "allow" else
                   "applies already: a deny rule only narrows")
            effects.append(f"{action} {rule.kind} {_value(rule.pattern)}  ({why})")
    return Review(shipped, ", ".join(summary) or "sets nothing", tuple(effects))


def _mcp_review(shipped: ShippedFile, content: bytes) -> Review:
    try:
        data = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Review(shipped, f"invalid: not valid JSON ({exc})", error=f"not valid JSON: {exc}")
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return Review(shipped, "invalid: mcpServers is not an object",
                      error="mcpServers: expected an object of servers")
    effects: list[str] = []
    for name, spec in servers.items():
        spec = spec if isinstance(spec, dict) else {}
        if "command" in spec:
            args = spec.get("args") or []
            argv = [str(spec["command"]), *(map(str, args) if isinstance(args, list)
                                            else [str(args)])]
            what = f"runs {_value(shlex.join(argv))}"
        elif "url" in spec:
            what = f"connects to {_value(str(spec['url']))}"
        else:
            what = "(neither a command nor a url)"
        env = spec.get("env")
        if isinstance(env, dict) and env:
            what += f"  (environment: {_value(', '.join(map(str, env)))})"
        effects.append(f"MCP server {_value(str(name))}: {what}")
    if not effects:
        return Review(shipped, "names no MCP server")
    names = ", ".join(_value(str(name), SHORT) for name in servers)
    return Review(shipped, f"starts {_plural(len(effects), 'MCP server')}: {names}",
                  tuple(effects))


def review(shipped: ShippedFile) -> Review:
    """What `shipped` would change once trusted."""
    if shipped.content is None:
        problem = shipped.problem or "cannot be read"
        return Review(shipped, visible(problem), error=visible(problem))
    if shipped.name == CONFIG:
        return _config_review(shipped, shipped.content)
    if shipped.name == MCP:
        return _mcp_review(shipped, shipped.content)
    return Review(shipped, "")


def untrusted_notice(state: TrustState) -> str | None:
    """One line for the user when the workspace ships files that were ignored, or None."""
    parts = []
    for shipped in state.untrusted:
        found = review(shipped)
        if shipped.content is None:
            parts.append(f"{shipped.name} is {found.summary}")
        else:
            denies = " (its deny rules do apply)" if "deny rule" in found.summary else ""
            parts.append(f"{shipped.name} ({found.summary}) is not trusted and was "
                         f"ignored{denies}")
    if state.store_problem:
        parts.insert(0, f"trust store unusable: {state.store_problem}")
    if not parts:
        return None
    fixable = any(shipped.content is not None for shipped in state.untrusted)
    how = f"; your own settings apply. Review and trust: swetui trust " \
          f"{shlex.quote(str(state.root))} (in swetui: /trust)" if fixable else ""
    return visible("; ".join(parts)) + how


def trust_reviewed(state: TrustState, store: TrustStore | None = None
                   ) -> tuple[TrustState, list[Review]]:
    """Trust every untrusted file of `state` that can be trusted, exactly as read; returns
    the new state and the reviews of the files that could not be (invalid, unusable)."""
    reviews = [review(shipped) for shipped in state.untrusted]
    refused = [found for found in reviews if found.error]
    names = {found.name for found in reviews if not found.error}
    if not names:
        return state, refused
    return (store or TrustStore()).trust(state, names), refused


def workspace_notices(root: Path, store: TrustStore | None = None) -> list[str]:
    """The notices to show when a workspace opens (none when all it ships is trusted)."""
    notice = untrusted_notice((store or TrustStore()).state(root))
    return [notice] if notice else []


def applies_after_trust(state: TrustState) -> tuple[str | None, list[str]]:
    """What a running session takes from a just-trusted config: its mode (or None), and
    the other settings it sets, which apply from the next start. Its rules apply at once
    (`WorkspaceRules` reads trust on every decision)."""
    content = state.trusted_content(CONFIG)
    if content is None:
        return None, []
    try:
        data = parse_toml(state.root / CONFIG, content)
    except ConfigError:
        return None, []
    mode = data.get("mode")
    later = [key for key in data if key not in ("mode", "approval_rules")]
    return (mode if isinstance(mode, str) else None), later
