"""The safety policy: whether an action is allowed at once, must ask, or is denied.

Order (DESIGN §4, §9): deny rules deny; a protected path or a dangerous command always asks
(a remembered allow never skips it); then allow rules; then the mode (ask: everything asks;
auto-edit: edits and writes apply, commands ask; auto: all apply).

Commands that a rule or the mode lets through run inside the kernel sandbox. Where there is
no sandbox, only commands the reader can prove harmless (an allow-list) pass unasked.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal, NamedTuple

from swetui.agent.events import PendingAction
from swetui.agent.rules import allowed_by, rule_matches
from swetui.agent.sensitive import protected_path_reason
from swetui.agent.tools.commands import CommandReader
from swetui.agent.tools.harmless import is_harmless
from swetui.config import ApprovalRule, Mode

Verdict = Literal["allow", "ask", "deny"]
MODES: tuple[Mode, ...] = ("ask", "auto-edit", "auto")


class PolicyDecision(NamedTuple):
    """What to do with an action, why, and what decided it."""

    verdict: Verdict
    why: str
    by: Literal["protected", "rule", "mode"]


def protection(action: PendingAction) -> str | None:
    """Why `action` must always ask, or None: computed from the action itself so a restored
    or hand-made action cannot drop its own protection."""
    if action.kind == "mcp":
        return None  # a server's own effects are its business: rules and the mode decide
    if action.kind == "bash":
        if action.sandbox_denied is not None:
            return "runs outside the sandbox"
        return CommandReader(action.cwd).danger(action.command or "")
    return protected_path_reason(action.path) or _protected_target(action)


def _protected_target(action: PendingAction) -> str | None:
    """A write through a symlink is judged by where it lands: `link -> .git/config` inside
    the workspace writes under .git/ as surely as naming it."""
    if not action.path or not action.cwd:
        return None
    root = Path(action.cwd)
    try:
        target = (root / action.path).resolve()
        real_root = root.resolve()
    except (OSError, RuntimeError):
        return "writes through a path that cannot be resolved"
    if not target.is_relative_to(real_root):
        return "writes outside the workspace"
    landed = target.relative_to(real_root).as_posix()
    if landed == action.path:
        return None
    reason = protected_path_reason(landed)
    return f"{reason} (through a link at {action.path})" if reason else None


def _describe(rule: ApprovalRule) -> str:
    return f"{rule.action} {rule.kind} {rule.pattern!r}"


class Policy:
    """Decides actions by protection, remembered rules and the approval mode."""

    def __init__(self, mode: Mode = "ask") -> None:
        self.mode = mode

    @property
    def mode(self) -> Mode:
        return self._mode

    @mode.setter
    def mode(self, mode: Mode) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; the modes are {', '.join(MODES)}")
        self._mode = mode

    def decide(self, action: PendingAction, session_rules: Sequence[ApprovalRule] = (),
               workspace_rules: Sequence[ApprovalRule] = (), *,
               sandboxed: bool = True) -> PolicyDecision:
        """allow / ask / deny for `action`, with the reason. `sandboxed` says whether an
        allowed command would run confined by the kernel."""
        verdict = self._decide(action, session_rules, workspace_rules)
        if verdict.verdict != "allow" or action.kind != "bash":
            return verdict
        if not sandboxed and not is_harmless(action.command or "", action.cwd):
            return PolicyDecision("ask", "no sandbox on this system: only commands that are "
                                  "plainly read-only run without asking", "mode")
        return verdict

    def _decide(self, action: PendingAction, session_rules: Sequence[ApprovalRule],
                workspace_rules: Sequence[ApprovalRule]) -> PolicyDecision:
        rules = [*session_rules, *workspace_rules]
        for rule in rules:
            if rule.action == "deny" and rule_matches(rule, action):
                return PolicyDecision("deny", f"denied by the rule {_describe(rule)}", "rule")
        protected = action.protected or protection(action)
        if protected:
            return PolicyDecision("ask", f"always asks: {protected}", "protected")
        if allowed_by(rules, action):
            kind = {"bash": "command", "mcp": "tool"}.get(action.kind, "path")
            matched = [r for r in rules if r.action == "allow" and r.kind == kind]
            names = ", ".join(repr(r.pattern) for r in matched if rule_matches(r, action))
            return PolicyDecision("allow", f"allowed by remembered rule {names or '(several)'}",
                                  "rule")
        if self.mode == "auto" or (self.mode == "auto-edit" and action.kind in ("edit",
                                                                                "write")):
            return PolicyDecision("allow", f"allowed by mode {self.mode}", "mode")
        what = {"bash": "commands", "mcp": "MCP tool calls"}.get(action.kind, "edits")
        return PolicyDecision("ask", f"mode {self.mode}: {what} wait for approval", "mode")
