"""Remembered approval rules: for this session (in memory) and for this workspace (stored
as `[[approval_rules]]` in `.swetui/config.toml`, keeping every other key of that file).

Matching: a command rule is a prefix on word boundaries ("git status" matches
"git status -s", not "git statusx"); a path rule is a workspace-relative glob with `**`.
"""

from __future__ import annotations

import builtins
import fnmatch
import shlex
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import ValidationError

from swetui.agent.events import Decision, PendingAction
from swetui.agent.sensitive import escape_glob, path_matches
from swetui.agent.tools.commands import split_commands
from swetui.config import ApprovalRule, ConfigError, parse_toml
from swetui.files import atomic_write
from swetui.paths import WorkspacePaths, private_dir
from swetui.trust import CONFIG, ShippedFile, TrustError, TrustStore, digest_of

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
    if rule.kind == "tool":
        return action.kind == "mcp" and fnmatch.fnmatchcase(action.call.name, rule.pattern)
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
    if action.kind == "mcp":
        return action.call.name
    return escape_glob(action.path or "")


def rule_for(action: PendingAction, decision: Decision) -> ApprovalRule | None:
    """The rule to remember for `decision`, or None when it is a one-off."""
    if decision.remember == "once":
        return None
    if action.kind == "mcp":
        pattern = decision.rule_pattern or action.rule_hint or action.call.name
        return ApprovalRule(action="allow" if decision.approved else "deny", kind="tool",
                            pattern=pattern.strip())
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

    def stored(self) -> list[ApprovalRule]:
        """Every rule kept in this scope, applied or not."""
        return list(self._rules)

    def list(self) -> list[ApprovalRule]:
        """The rules that apply (what the policy uses and `/rules` numbers)."""
        return self.stored()

    def add(self, rule: ApprovalRule) -> bool:
        """Add `rule`; False when it was already there."""
        rules = self.stored()
        if rule in rules:
            return False
        self._save([*rules, rule])
        return True

    def remove(self, which: int | ApprovalRule) -> ApprovalRule:
        """Remove a rule by its index in `list()` or by value; IndexError/ValueError if absent."""
        rules = self.stored()
        if isinstance(which, int):
            applied = self.list()
            if not 0 <= which < len(applied):
                raise IndexError(f"no rule {which}: there are {len(applied)} {self.scope} rules")
            removed = applied[which]
        else:
            if which not in rules:
                raise ValueError(f"no such {self.scope} rule: {which.action} {which.kind} "
                                 f"{which.pattern!r}")
            removed = which
        rules.remove(removed)
        self._save(rules)
        return removed

    def _save(self, rules: builtins.list[ApprovalRule]) -> None:
        self._rules = rules


class WorkspaceRules(SessionRules):
    """Rules stored in the workspace's `.swetui/config.toml`, read fresh when it changes.

    A cloned repository can ship that file, so its allow rules apply only once the user has
    trusted it (`swetui.trust`); its deny rules apply regardless, since they only narrow
    what may run unasked. swetui's own writes (a rule the user remembers or removes) keep a
    trusted file trusted; they never make an untrusted one trusted.
    """

    scope: Scope = "workspace"

    def __init__(self, root: Path, store: TrustStore | None = None) -> None:
        super().__init__()
        self.root = WorkspacePaths(root).root
        self.file = self.root / CONFIG
        self.store = store or TrustStore()
        self._seen: tuple[object, ...] | None = None
        self._trusted = False

    def _read(self, *, writing: bool = False) -> tuple[ShippedFile | None, dict[str, Any]]:
        """The file as read once (hashed and parsed from the same bytes) and its data. A
        file swetui does not use (a link out of the workspace, a FIFO) holds no rules, and
        is never written through."""
        shipped = self.store.state(self.root, (CONFIG,)).file(CONFIG)
        if shipped is None:
            return None, {}
        if shipped.content is None:
            if writing:
                raise ConfigError(f"{self.file}: {shipped.problem}")
            return shipped, {}
        return shipped, parse_toml(self.file, shipped.content)

    def _stamp(self) -> tuple[object, ...]:
        stamps: list[object] = []
        for path in (self.file, self.store.file):
            try:
                info = path.stat()
                stamps.append((info.st_ino, info.st_mtime_ns, info.st_size))
            except OSError:
                stamps.append(None)
        return tuple(stamps)

    def stored(self) -> list[ApprovalRule]:
        seen = self._stamp()
        if seen != self._seen:  # the user may edit the file (or trust it) while swetui runs
            shipped, data = self._read()
            raw = data.get("approval_rules", [])
            try:
                self._rules = [ApprovalRule.model_validate(item) for item in raw]
            except (ValidationError, TypeError) as exc:
                raise ConfigError(f"{self.file}: approval_rules: {exc}") from None
            self._trusted = shipped is None or shipped.trusted
            self._seen = seen
        return list(self._rules)

    def list(self) -> list[ApprovalRule]:
        rules = self.stored()
        return rules if self._trusted else [rule for rule in rules if rule.action == "deny"]

    @property
    def trusted(self) -> bool:
        """False while the file holds settings the user has not trusted."""
        self.stored()
        return self._trusted

    def _save(self, rules: builtins.list[ApprovalRule]) -> None:
        # Raises rather than overwrite a file it cannot parse (or write through a link out).
        shipped, data = self._read(writing=True)
        if rules:
            data["approval_rules"] = [rule.model_dump() for rule in rules]
        else:
            data.pop("approval_rules", None)
        content = tomli_w.dumps(data).encode("utf-8")
        private_dir(self.file.parent)
        mode = self.file.stat().st_mode if shipped is not None else None
        atomic_write(self.file, content, mode)
        self._rules = rules
        if shipped is None or shipped.trusted:
            # The user's own change: trusted before, trusted after. An untrusted file stays
            # untrusted, or writing a rule into it would launder what the repository set.
            try:
                self.store.record(self.root, CONFIG, digest_of(content))
            except TrustError as exc:
                raise ConfigError(f"the rule was saved, but {exc}") from None
        self._seen = None


class RuleBook:
    """Both scopes together, as the policy and the UI use them."""

    def __init__(self, root: Path) -> None:
        self.session = SessionRules()
        self.workspace = WorkspaceRules(root)

    def scope(self, scope: Scope) -> SessionRules:
        return self.session if scope == "session" else self.workspace

    def numbered(self) -> builtins.list[tuple[Scope, ApprovalRule]]:
        """Every remembered rule, numbered from 1 in this order: session, then workspace."""
        session: Scope = "session"
        workspace: Scope = "workspace"
        return [*((session, rule) for rule in self.session.list()),
                *((workspace, rule) for rule in self.workspace.list())]

    def remove_numbered(self, number: int) -> tuple[Scope, ApprovalRule]:
        """Remove rule `number` (as `numbered()` numbers them); a workspace rule leaves
        `.swetui/config.toml` too. ValueError when there is no such rule."""
        rules = self.numbered()
        if not 1 <= number <= len(rules):
            raise ValueError(f"no rule {number}: there are {len(rules)}")
        scope, rule = rules[number - 1]
        self.scope(scope).remove(rule)
        return scope, rule

    def remember(self, action: PendingAction, decision: Decision) -> ApprovalRule | None:
        """Store the rule a decision asks to remember; returns it (None for "once")."""
        rule = rule_for(action, decision)
        if rule is None or decision.remember == "once":
            return None
        scope = self.scope(decision.remember)
        scope.add(rule)
        if scope is self.workspace and rule not in self.workspace.list():
            # Saved into a file the user has not trusted: it applies from the moment they
            # trust it; until then their choice holds for this session.
            self.session.add(rule)
        return rule
