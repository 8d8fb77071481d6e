"""Chunk boundaries of a long session (DESIGN §3): when a limit says so, write the handoff
record, archive the history behind it and let the next request start from it; warn before."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.busy import SessionBusy
from swetui.agent.compacting import SessionCompaction
from swetui.agent.handoff import Handoff, chunk_exchanges, handoff_summary
from swetui.agent.limits import SessionLimits, Trigger, turns_of
from swetui.agent.plan import Plan
from swetui.agent.turn_events import SessionLimit
from swetui.engine.compaction import apply
from swetui.engine.compaction.chunk import chunk_plan
from swetui.engine.context import ContextEngine
from swetui.engine.events import EngineNotice
from swetui.engine.items import ItemState
from swetui.engine.payloads import HandoffPayload
from swetui.engine.store import RecordEvent
from swetui.paths import write_private


def earlier_summary(handoff_text: str) -> str:
    """The summary part of an earlier chunk's handoff text."""
    body = handoff_text.split("\n\nSummary:\n", 1)[-1]
    return body.split("\n\nCompleted tasks:", 1)[0]


REASONS: dict[Trigger, str] = {
    "soft": "the soft turn limit", "hard": "the hard turn limit",
    "window": "the window is nearly full", "failures": "repeated failures",
    "manual": "you asked for it (/handoff)"}


class SessionChunks:
    """Turns a session's limits into warnings and chunk boundaries."""

    def __init__(self, engine: ContextEngine, limits: SessionLimits, plan: Plan,
                 compaction: SessionCompaction, record: RecordEvent, *, root: Path,
                 handoffs: Path, session_id: str, persistent: bool) -> None:
        self.engine = engine
        self.limits = limits
        self.plan = plan
        self.compaction = compaction
        self.record = record
        self.root = root
        self.handoffs = handoffs
        self.session_id = session_id
        self.persistent = persistent
        self.written: list[Path] = []

    async def before_step(self) -> None:
        """Before a model call: a boundary the hard limit, the window or failures call for
        (the running turn stays whole; only earlier turns are handed off)."""
        trigger = self.limits.before_step()
        if trigger is not None:
            self.boundary(trigger, keep_from=self.engine.turn)

    def after_turn(self) -> None:
        """After your turn: the warnings reached, then a soft boundary when due."""
        for message in self.limits.warnings():
            self.engine.bus.publish(SessionLimit(turn=self.engine.turn, kind="warning",
                                                 message=message, chunk=self.limits.chunk))
        trigger = self.limits.at_end_of_turn()
        if trigger is not None:
            self.boundary(trigger, keep_from=self.engine.turn + 1)

    def by_hand(self, *, busy: bool) -> Path | None:
        """End the chunk now (the user's `/handoff`): write the handoff and start the next
        chunk from it. The handoff file (None when not written); SessionBusy during a turn,
        ValueError when this chunk has no turn to hand off."""
        if busy:
            raise SessionBusy("the agent is working: hand off when the turn has ended")
        if self.limits.turns < 1:
            raise ValueError("nothing to hand off: this chunk has no turn yet")
        return self.boundary("manual", keep_from=self.engine.turn + 1)

    def handoff(self, trigger: Trigger, keep_from: int) -> Handoff:
        """The record of the chunk ending now (turns up to `keep_from` - 1)."""
        limits, engine = self.limits, self.engine
        first, last = limits.start_turn + 1, keep_from - 1
        previous = next((earlier_summary(item.content) for item in engine
                         if isinstance(item.payload, HandoffPayload)
                         and item.state is not ItemState.DROPPED
                         and item.state is not ItemState.ARCHIVED), None)
        state = {"turn": str(engine.turn), "model": engine.model,
                 "tokens": f"{engine.budget().total:,} of {engine.budget().limit:,}",
                 "consecutive failures": str(limits.failures)}
        return Handoff(
            session_id=self.session_id, chunk=limits.chunk, trigger=REASONS[trigger],
            turns_completed=max(0, last - first + 1), first_turn=first, last_turn=last,
            completed_tasks=self.plan.completed(), pending_tasks=self.plan.pending(),
            modified_files=list(limits.modified), files_read=list(limits.read),
            state=state, summary=handoff_summary(engine, chunk_exchanges(engine, first, last),
                                                 previous))

    def boundary(self, trigger: Trigger, *, keep_from: int) -> Path | None:
        """End this chunk: write the handoff, archive the history behind it, start the next
        chunk from it. Returns the handoff file (None when it could not be written)."""
        handoff = self.handoff(trigger, keep_from)
        path = self.handoffs / f"{self.session_id}-{handoff.chunk}.json"
        written: Path | None = path
        if self.persistent:
            try:
                write_private(path, handoff.model_dump_json(indent=2).encode("utf-8"))
            except OSError as exc:
                written = None
                self.engine.bus.publish(EngineNotice(
                    message=f"handoff not written ({exc.strerror or exc}); the next chunk "
                            "starts from it all the same"))
        else:
            written = None
        shown = str(path.relative_to(self.root)) if written is not None else None
        plan = chunk_plan(self.engine, handoff.text(), keep_from=keep_from,
                          title=f"Handoff from chunk {handoff.chunk}", chunk=handoff.chunk,
                          path=shown)
        finished = apply(self.engine, plan, trigger="chunk")
        self.record("compaction", {**finished.model_dump(mode="json"), "notes": plan.notes})
        chunk = handoff.chunk + 1
        self.limits.started(chunk, keep_from - 1)
        self.compaction.held_until = None
        self.record("chunk", {"chunk": chunk, "start_turn": keep_from - 1, "trigger": trigger,
                              "handoff": shown, "turn": self.engine.turn})
        if written is not None:
            self.written.append(written)
        self.engine.bus.publish(SessionLimit(
            turn=self.engine.turn, kind="chunk", chunk=chunk, handoff=shown,
            message=f"Chunk {handoff.chunk} ended ({REASONS[trigger]}, "
                    f"{turns_of(handoff.turns_completed)}): chunk {chunk} starts from the "
                    f"handoff{f' {shown}' if shown else ''}; the earlier history is "
                    "archived (recall any turn)"))
        return written
