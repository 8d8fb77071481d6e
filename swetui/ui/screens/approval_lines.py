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
                hunks = decision.hunks
                partial = f" (hunks {', '.join(str(h) for h in hunks)})" if hunks else ""
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
