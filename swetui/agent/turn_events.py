"""Events of an agent turn, in the order a transcript shows them.

The turn loop publishes these on the engine's bus (the session publishes `CompactionNotice`,
`PlanChanged` and `SessionLimit`); the UI renders them and `swetui run` prints them. A tool call has
one pair, `ToolCallStarted` then `ToolCallFinished`, also when it is malformed, denied or
cancelled. Approval events live in `swetui.agent.events`; the provider's stream events
(`swetui.providers.events`) are never published on the bus.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from swetui.agent.cost import Cost
from swetui.providers.usage import Usage


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    turn: int


class TurnStarted(_Event):
    """The user sent `text`; the agent starts working."""

    text: str


class RetrievalDone(_Event):
    """Just-in-time retrieval added these items for the request."""

    item_ids: tuple[str, ...]
    summary: str
    notes: tuple[str, ...] = ()
    """What was skipped or refused (a FIFO, a secret file, a cut scan), also in `summary`."""

    def line(self) -> str:
        """What the transcript and `swetui run` print: what swetui itself put in the request
        before asking the model."""
        return f"added to this request's context: {self.summary}"


class ModelCallStarted(_Event):
    step: int
    model: str
    input_tokens: int
    """The estimate for the assembled request."""


class ReasoningChunk(_Event):
    text: str


class AnswerChunk(_Event):
    text: str


class ToolCallStarted(_Event):
    call_id: str
    name: str
    arguments: dict[str, Any]


class ToolCallFinished(_Event):
    call_id: str
    name: str
    summary: str
    """One line for the transcript."""
    content: str
    """The full result, shown when the line is expanded."""
    is_error: bool = False
    path: str | None = None
    """The workspace file the tool touched, if any."""
    duration: float = 0.0
    """Seconds from the call's start to its result, including the wait for approval."""


class ModelCallFinished(_Event):
    step: int
    input_tokens: int
    output_tokens: int
    measured: bool
    """True when the provider reported the counts, False for estimates."""
    usage: Usage | None = None
    """The call's normalised usage (cache reads and writes, reasoning)."""
    cost: Cost | None = None
    """What the call cost, priced by genai-prices (or the config; $0 for local models)."""
    duration: float = 0.0
    error: str | None = None


class TurnFinished(_Event):
    """The turn ended: normally, interrupted (esc / a dropped stream) or with an error."""

    duration: float
    input_tokens: int
    output_tokens: int
    usage: Usage | None = None
    """The sum over the turn's model calls; None in logs written before it was kept."""
    cost: Cost | None = None
    """What the turn's model calls cost; None in logs written before it was kept."""
    requests: int = 0
    """Model calls the turn made (`input_tokens` sums theirs); 0 in logs written before it
    was kept."""
    interrupted: bool = False
    error: str | None = None
    answer: str = ""


class CompactionNotice(_Event):
    """A compaction ran before sending (the engine's compaction events carry the detail)."""

    message: str


class PlanChanged(_Event):
    """The model changed its plan (the `todo` tool): every task with its status."""

    tasks: tuple[tuple[str, str], ...]
    """(task, status) in order; status is pending, in_progress or completed."""

    def line(self) -> str:
        """`Plan: 2 of 5 done · now: <task>` for the transcript."""
        done = sum(status == "completed" for _task, status in self.tasks)
        now = next((task for task, status in self.tasks if status == "in_progress"),
                   next((task for task, status in self.tasks if status == "pending"), ""))
        return f"Plan: {done} of {len(self.tasks)} done" + (f" · now: {now}" if now else "")


class SessionLimit(_Event):
    """A session limit was reached: a warning, or a chunk boundary with its handoff file."""

    kind: Literal["warning", "chunk"]
    message: str
    chunk: int = 1
    """The chunk the session is in now (after a boundary: the new one)."""
    handoff: str | None = None
    """The handoff file written at a boundary (workspace-relative)."""


class CommandShown(_Event):
    """A slash command the user ran and its answer as plain text: kept in the session log
    (never published live: the screen shows the answer itself) so a resumed session shows
    it again."""

    command: str
    output: str


TurnEvent = (TurnStarted | RetrievalDone | ModelCallStarted | ReasoningChunk | AnswerChunk
             | ToolCallStarted | ToolCallFinished | ModelCallFinished | TurnFinished
             | CompactionNotice | PlanChanged | SessionLimit | CommandShown)
"""Every event of a turn, in transcript order (also what a resumed log rebuilds)."""
