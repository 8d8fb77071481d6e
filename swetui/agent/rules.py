"""Remembered approval rules: for this session (in memory) and for this workspace (stored
as `[[approval_rules]]` in `.swetui/config.toml`, keeping every other key of that file).

Matching: a command rule is a prefix on word boundaries ("git status" matches
"git status -s", not "git statusx"); a path rule is a workspace-relative glob with `**`.
"""

from __future__ import annotations

import builtins
import os
import shlex
import tomllib
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import ValidationError

from swetui.agent.events import Decision, PendingAction
from swetui.agent.tools.commands import split_commands
from swetui.agent.tools.sensitive import escape_glob, path_matches
from swetui.agent.tools.workspace import atomic_write
from swetui.config import ApprovalRule, ConfigError
from swetui.paths import WorkspacePaths

Scope = Literal["session", "workspace"]


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def command_matches(pattern: str, command: str) -> bool:
    """True when the words of `pattern` begin the (simple) command `command`."""
    want, have = _words(pattern), _words(command)
    return bool(want) and have[:len(want)] == want


def _simple_commands(command: str) -> list[str]:
    return [shlex.join(segment.words) for segment in split_commands(command) if segment.words]


def rule_matches(rule: ApprovalRule, action: PendingAction) -> bool:
    """Whether `rule` applies to `action` (command rules to bash, path rules to files).

    An allow rule must cover every simple command of a compound command (`git status &&
    rm x` is not allowed by "git status"); a deny rule applies if it covers any of them.
    """
    if rule.kind == "path":
        return action.kind != "bash" and action.path is not None and \
            path_matches(rule.pattern, action.path)
    if action.kind != "bash" or not action.command:
        return False
    parts = _simple_commands(action.command) or [action.command]
    check = all if rule.action == "allow" else any
    return check(command_matches(rule.pattern, part) for part in parts)


def allowed_by(rules: list[ApprovalRule], action: PendingAction) -> bool:
    """True when the allow rules together cover every simple command (or the path)."""
    allows = [rule for rule in rules if rule.action == "allow"]
    if action.kind != "bash":
        return any(rule_matches(rule, action) for rule in allows)
    parts = _simple_commands(action.command or "") or [action.command or ""]
    commands = [rule.pattern for rule in allows if rule.kind == "command"]
    return all(any(command_matches(p, part) for p in commands) for part in parts)


def first_words(command: str, count: int = 2) -> str:
    """The first `count` words of the first simple command: the default command rule."""
    parts = _simple_commands(command)
    words = _words(parts[0]) if parts else _words(command)
    return shlex.join(words[:count])


def suggested_pattern(action: PendingAction) -> str:
    """What remembering this action would match: a command prefix or the exact path."""
    if action.kind == "bash":
        return first_words(action.command or "")
    return escape_glob(action.path or "")


def rule_for(action: PendingAction, decision: Decision) -> ApprovalRule | None:
    """The rule to remember for `decision`, or None when it is a one-off."""
    if decision.remember == "once":
        return None
    if action.kind == "bash":
        command = decision.edited if decision.approved and decision.edited else action.command
        pattern = decision.rule_pattern or first_words(command or "")
        kind: Literal["command", "path"] = "command"
    else:
        pattern = decision.rule_pattern or action.rule_hint or escape_glob(action.path or "")
        kind = "path"
    if not pattern.strip():
        return None
    return ApprovalRule(action="allow" if decision.approved else "deny", kind=kind,
                        pattern=pattern.strip())


class SessionRules:
    """Rules remembered for this session only."""

    scope: Scope = "session"

    def __init__(self, rules: list[ApprovalRule] | None = None) -> None:
        self._rules: list[ApprovalRule] = list(rules or [])

    def list(self) -> list[ApprovalRule]:
        return list(self._rules)

    def add(self, rule: ApprovalRule) -> bool:
        """Add `rule`; False when it was already there."""
        rules = self.list()
        if rule in rules:
            return False
        self._save([*rules, rule])
        return True

    def remove(self, which: int | ApprovalRule) -> ApprovalRule:
        """Remove a rule by its index in `list()` or by value; IndexError/ValueError if absent."""
        rules = self.list()
        if isinstance(which, int):
            if not 0 <= which < len(rules):
                raise IndexError(f"no rule {which}: there are {len(rules)} {self.scope} rules")
            removed = rules.pop(which)
        else:
            if which not in rules:
                raise ValueError(f"no such {self.scope} rule: {which.action} {which.kind} "
                                 f"{which.pattern!r}")
            rules.remove(which)
            removed = which
        self._save(rules)
        return removed

    def _save(self, rules: builtins.list[ApprovalRule]) -> None:
        self._rules = rules


class WorkspaceRules(SessionRules):
    """Rules stored in the workspace's `.swetui/config.toml`, read fresh when it changes."""

    scope: Scope = "workspace"

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.file = WorkspacePaths(root).config_file
        self._seen: tuple[int, int] | None = None

    def _load(self) -> dict[str, Any]:
        try:
            text = self.file.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{self.file}: cannot be read ({exc})") from None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{self.file}: not valid TOML: {exc}") from None

    def list(self) -> list[ApprovalRule]:
        try:
            stat = self.file.stat()
            seen: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            seen = None
        if seen != self._seen:  # the user may edit the file by hand while swetui runs
            raw = self._load().get("approval_rules", [])
            try:
                self._rules = [ApprovalRule.model_validate(item) for item in raw]
            except (ValidationError, TypeError) as exc:
                raise ConfigError(f"{self.file}: approval_rules: {exc}") from None
            self._seen = seen
        return list(self._rules)

    def _save(self, rules: builtins.list[ApprovalRule]) -> None:
        data = self._load()  # raises rather than overwrite a file we could not parse
        if rules:
            data["approval_rules"] = [rule.model_dump() for rule in rules]
        else:
            data.pop("approval_rules", None)
        self.file.parent.mkdir(parents=True, exist_ok=True)
        mode = self.file.stat().st_mode if self.file.exists() else None
        atomic_write(self.file, tomli_w.dumps(data).encode("utf-8"), mode)
        self._rules = rules
        stat = os.stat(self.file)
        self._seen = (stat.st_mtime_ns, stat.st_size)


class RuleBook:
    """Both scopes together, as the policy and the UI use them."""

    def __init__(self, root: Path) -> None:
        self.session = SessionRules()
        self.workspace = WorkspaceRules(root)

    def scope(self, scope: Scope) -> SessionRules:
        return self.session if scope == "session" else self.workspace

    def remember(self, action: PendingAction, decision: Decision) -> ApprovalRule | None:
        """Store the rule a decision asks to remember; returns it (None for "once")."""
        rule = rule_for(action, decision)
        if rule is None:
            return None
        self.scope(decision.remember).add(rule)  # type: ignore[arg-type]
        return rule
