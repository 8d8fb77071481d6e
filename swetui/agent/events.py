"""Approvals: the pending action and the decision models, and the events the approval
queue (`ApprovalRequested`, `ApprovalDecided`, `ApprovalCancelled`) and the toolbox
(`ApprovalDecided` by a rule or the mode, `CommandStarted`, `ModeChanged`, `RulesChanged`,
`EditUndone`) publish.

A tool call's own start and finish are turn events (`ToolCallStarted`, `ToolCallFinished`
in `swetui.agent.turn_events`), published once per call by the turn loop.

`PendingAction` and `Decision` are plain JSON-serialisable pydantic models so a session log
can store a pending approval and a restarted process can bring it back, still pending.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from swetui.agent.diffs import Hunk
from swetui.config import ApprovalRule, Mode
from swetui.messages import ToolCall

ActionKind = Literal["edit", "write", "bash", "mcp"]
Remember = Literal["once", "session", "workspace"]
DecidedBy = Literal["user", "rule", "mode"]


def new_action_id() -> str:
    return "act_" + uuid.uuid4().hex[:12]


def _now() -> datetime:
    return datetime.now(UTC)


class PendingAction(BaseModel):
    """An edit, a write or a command waiting for a decision, with everything to preview it."""

    id: str = Field(default_factory=new_action_id)
    call: ToolCall
    kind: ActionKind
    path: str | None = None
    """Workspace-relative file for edits and writes."""
    command: str | None = None
    """The shell command for bash; the tool and its arguments (JSON) for an MCP call."""
    cwd: str
    """Where the command runs (the workspace root)."""
    diff: str = ""
    """Unified diff with a/ b/ names (edits and writes)."""
    hunks: list[Hunk] = Field(default_factory=list)
    old_content: str | None = None
    """The file before (None for a new file), with '\\n' line endings."""
    new_content: str | None = None
    """The file the model proposes, with '\\n' line endings."""
    protected: str | None = None
    """Why this action always asks (e.g. "writes under .git/"), or None."""
    timeout: float | None = None
    """Seconds the command may run (bash only)."""
    rule_hint: str = ""
    """The pattern a remembered decision would use (command prefix or path)."""
    summary: str = ""
    """One line: "edit src/app.py (+2 −1)", "run: pytest -q"."""
    sandbox_denied: str | None = None
    """Set on the offer made when the sandbox blocked a confined run (the line that showed
    it): approving this action runs the command outside the sandbox."""
    created_at: datetime = Field(default_factory=_now)


class Decision(BaseModel):
    """The user's (or a rule's) answer to a pending action."""

    approved: bool
    reason: str | None = None
    """Why it was denied; sent to the model."""
    hunks: list[int] | None = None
    """Accepted hunk indexes of a partial edit; None means all."""
    edited: str | None = None
    """User-edited new content (edit/write) or command (bash)."""
    remember: Remember = "once"
    rule_pattern: str | None = None
    """The pattern to remember instead of the action's `rule_hint`."""
    unconfined: bool = False
    """Run the approved command outside the sandbox (the user's explicit, marked choice;
    never remembered by a rule)."""


class ApprovalRequested(BaseModel):
    """An action waits in the approval queue."""

    model_config = ConfigDict(frozen=True)
    action: PendingAction


class ApprovalDecided(BaseModel):
    """An action was approved or denied, by the user, a remembered rule or the mode."""

    model_config = ConfigDict(frozen=True)
    action_id: str
    decision: Decision
    by: DecidedBy
    action: PendingAction | None = None


class ApprovalCancelled(BaseModel):
    """A pending action left the queue undecided (its turn was interrupted)."""

    model_config = ConfigDict(frozen=True)
    action_id: str
    reason: str


class CommandStarted(BaseModel):
    """An approved command is about to run: logged (durably) so a command that was running
    when swetui died is reported on resume."""

    model_config = ConfigDict(frozen=True)
    action_id: str
    call_id: str
    command: str
    confined: bool


class ModeChanged(BaseModel):
    model_config = ConfigDict(frozen=True)
    mode: Mode


class RulesChanged(BaseModel):
    """Remembered rules of a scope were added or removed; `rules` is the new list."""

    model_config = ConfigDict(frozen=True)
    scope: Literal["session", "workspace"]
    rules: list[ApprovalRule]


class EditUndone(BaseModel):
    """A checkpoint was restored by undo."""

    model_config = ConfigDict(frozen=True)
    path: str
    message: str


ApprovalEvent = (ApprovalRequested | ApprovalDecided | ApprovalCancelled | CommandStarted
                 | ModeChanged | RulesChanged | EditUndone)
"""Every event the approval queue and the toolbox publish."""
