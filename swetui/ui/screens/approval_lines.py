"""Transcript lines for approval events: what waited, and what was decided by whom."""

from __future__ import annotations

from rich.text import Text

from swetui.agent import (
    ApprovalCancelled,
    ApprovalDecided,
    ApprovalRequested,
    PendingAction,
)
from swetui.text import one_line

ApprovalEvent = ApprovalRequested | ApprovalDecided | ApprovalCancelled
"""The approval queue's events (the pane, the header badge and the transcript follow them)."""

DECIDERS = {"user": "you", "rule": "a remembered rule", "mode": "the mode"}


def _what(action: PendingAction | None, fallback: str) -> str:
    if action is None:
        return fallback
    if action.summary:
        return one_line(action.summary)
    target = action.path or action.command or ""
    return one_line(f"{action.kind} {target}".strip())


def action_id_of(event: ApprovalEvent) -> str:
    """The id of the action an approval event is about."""
    if isinstance(event, ApprovalRequested):
        return event.action.id
    return event.action_id


def _kept_hunks(kept: list[int] | None, action: PendingAction | None) -> str:
    """" (kept hunk 1 of 2)": counted from 1, as the model is told; empty when whole."""
    if not kept:
        return ""
    total = len(action.hunks) if action is not None else 0
    if total and len(kept) >= total:
        return ""
    numbers = ", ".join(str(index + 1) for index in sorted(kept))
    of = f" of {total}" if total else ""
    return f" (kept hunk{'s' if len(kept) != 1 else ''} {numbers}{of})"


def decision_line(event: ApprovalEvent) -> Text:
    """The line the transcript records for an approval event."""
    match event:
        case ApprovalRequested(action=action):
            line = Text("⚑ ", style="bold")
            line.append(f"Waiting for approval: {_what(action, 'an action')}")
            if action.protected:
                line.append(f" (always asks: {one_line(action.protected)})", style="dim")
            line.append("  · F5 to review", style="dim")
            return line
        case ApprovalDecided(decision=decision, action=action, by=by, action_id=action_id):
            what = _what(action, action_id)
            who = DECIDERS.get(by, "you")
            if decision.approved:
                line = Text("✓ ", style="bold green")
                partial = _kept_hunks(decision.hunks, action)
                edited = " (edited)" if decision.edited else ""
                line.append(f"Approved {what}{partial}{edited} by {who}")
            else:
                line = Text("✗ ", style="bold red")
                line.append(f"Denied {what} by {who}")
                if decision.reason:
                    line.append(f": {one_line(decision.reason)}", style="italic")
            if decision.remember and decision.remember != "once":
                line.append(f" · remembered for this {decision.remember}", style="dim")
            return line
        case ApprovalCancelled(reason=reason):
            return Text(f"— Withdrawn: {one_line(reason)}", style="dim")
