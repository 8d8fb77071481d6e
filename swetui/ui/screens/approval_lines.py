"""Transcript lines for approval events: what waited, and what was decided by whom."""

from __future__ import annotations

from pydantic import BaseModel
from rich.text import Text

APPROVAL_EVENTS = frozenset({"ApprovalRequested", "ApprovalDecided", "ApprovalCancelled"})
DECIDERS = {"user": "you", "rule": "a remembered rule", "mode": "the mode"}


def is_approval_event(event: BaseModel) -> bool:
    return type(event).__name__ in APPROVAL_EVENTS


def _what(action: object | None, fallback: str) -> str:
    if action is None:
        return fallback
    summary = getattr(action, "summary", "") or ""
    if summary:
        return summary
    kind = getattr(action, "kind", "action")
    target = getattr(action, "path", None) or getattr(action, "command", None) or ""
    return f"{kind} {target}".strip()


def decision_line(event: BaseModel) -> Text | None:
    """The line the transcript records for an approval event (None: nothing to record)."""
    name = type(event).__name__
    if name == "ApprovalRequested":
        action = getattr(event, "action", None)
        line = Text("⚑ ", style="bold")
        line.append(f"Waiting for approval: {_what(action, 'an action')}")
        protected = getattr(action, "protected", None)
        if protected:
            line.append(f" (always asks: {protected})", style="dim")
        line.append("  · F5 to review", style="dim")
        return line
    if name == "ApprovalDecided":
        decision = getattr(event, "decision", None)
        action = getattr(event, "action", None)
        by = DECIDERS.get(str(getattr(event, "by", "user")), "you")
        what = _what(action, str(getattr(event, "action_id", "")))
        if decision is not None and getattr(decision, "approved", False):
            line = Text("✓ ", style="bold green")
            hunks = getattr(decision, "hunks", None)
            partial = f" (hunks {', '.join(str(h) for h in hunks)})" if hunks else ""
            edited = " (edited)" if getattr(decision, "edited", None) else ""
            line.append(f"Approved {what}{partial}{edited} by {by}")
        else:
            line = Text("✗ ", style="bold red")
            line.append(f"Denied {what} by {by}")
            reason = getattr(decision, "reason", None)
            if reason:
                line.append(f": {reason}", style="italic")
        remember = getattr(decision, "remember", "once")
        if remember and remember != "once":
            line.append(f" · remembered for this {remember}", style="dim")
        return line
    if name == "ApprovalCancelled":
        return Text(f"— Withdrawn: {getattr(event, 'reason', '')}", style="dim")
    return None
