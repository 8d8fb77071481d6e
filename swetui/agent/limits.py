"""Session limits (DESIGN §3, seed 003): turns, the window and consecutive failures per chunk,
and what they call for: a warning, or a chunk boundary at the end of a turn or at the next
step (never mid-tool). Every limit is a setting; 0 turns it off."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

from swetui.agent.turn_events import ModelCallFinished, ToolCallFinished, TurnFinished
from swetui.config import Settings
from swetui.engine.bus import EventBus
from swetui.engine.context import ContextEngine

WRITING_TOOLS = frozenset({"edit_file", "write_file"})
Trigger = Literal["soft", "hard", "window", "failures", "manual"]


def turns_of(count: int) -> str:
    """`1 turn`, `2 turns`."""
    return f"{count} turn{'' if count == 1 else 's'}"


class SessionLimits:
    """Counts what a chunk did and says when a limit is reached."""

    def __init__(self, settings: Settings, engine: ContextEngine, bus: EventBus) -> None:
        self.settings = settings
        self.engine = engine
        self.chunk = 1
        self.start_turn = 0
        """The last turn of the previous chunk (turns after it belong to this one)."""
        self.failures = 0
        """Consecutive failed tool calls and model errors."""
        self.read: list[str] = []
        self.modified: list[str] = []
        self.warned: set[str] = set()
        bus.subscribe(self._on_event)

    def _on_event(self, event: BaseModel) -> None:
        if isinstance(event, ToolCallFinished):
            self.failures = self.failures + 1 if event.is_error else 0
            if not event.is_error and event.path:
                seen = self.modified if event.name in WRITING_TOOLS else \
                    self.read if event.name == "read_file" else None
                if seen is not None and event.path not in seen:
                    seen.append(event.path)
        elif isinstance(event, ModelCallFinished) and event.error:
            self.failures += 1
        elif isinstance(event, TurnFinished) and not (event.error or event.interrupted):
            self.failures = 0  # the model answered

    def restore(self, replayed: Sequence[dict[str, Any]]) -> None:
        """The chunk a resumed session is in (its last `chunk` record)."""
        for event in reversed(replayed):
            if event.get("type") == "chunk":
                self.chunk = int(event.get("chunk", 1))
                self.start_turn = int(event.get("start_turn", 0))
                return

    @property
    def turns(self) -> int:
        """Your turns in this chunk so far (the running one included)."""
        return self.engine.turn - self.start_turn

    def warnings(self) -> list[str]:
        """Limits reached for the first time in this chunk, as lines for the user."""
        settings, out = self.settings, []
        checks = (
            ("turns", settings.warn_turns, self.turns,
             f"{turns_of(self.turns)} in this chunk: " + (
                 f"at {settings.soft_chunk_turns} swetui writes a handoff and continues from it"
                 if settings.soft_chunk_turns else
                 "automatic handoffs are off (soft_chunk_turns = 0); /handoff starts a new "
                 "chunk")),
            ("read", settings.files_read_limit, len(self.read),
             f"{len(self.read)} files read in this chunk (limit {settings.files_read_limit}): "
             "prefer targeted reads"),
            ("modified", settings.files_modified_limit, len(self.modified),
             f"{len(self.modified)} files modified in this chunk (limit "
             f"{settings.files_modified_limit}): group related edits"))
        for name, limit, value, message in checks:
            if limit and value >= limit and name not in self.warned:
                self.warned.add(name)
                out.append(message)
        return out

    def at_end_of_turn(self) -> Trigger | None:
        """A boundary due now that the turn ended: the soft turn limit."""
        soft = self.settings.soft_chunk_turns
        return "soft" if soft and self.turns >= soft else None

    def before_step(self) -> Trigger | None:
        """A boundary due before the next model call: the hard turn limit, the window or
        the failures (only once an earlier turn of this chunk is there to hand off)."""
        settings = self.settings
        if self.turns <= 1:
            return None
        if settings.hard_chunk_turns and self.turns >= settings.hard_chunk_turns:
            return "hard"
        budget = self.engine.budget()
        if settings.chunk_window_share and budget.limit and \
                budget.total >= settings.chunk_window_share * budget.limit:
            return "window"
        if settings.chunk_failures and self.failures > settings.chunk_failures:
            return "failures"
        return None

    def started(self, chunk: int, start_turn: int) -> None:
        """A new chunk begins after `start_turn`."""
        self.chunk, self.start_turn = chunk, start_turn
        self.failures = 0
        self.read, self.modified = [], []
        self.warned = set()
