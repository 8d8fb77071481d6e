"""When and how a session compacts its context: the compactor for its model, the automatic
check before each request, the session-log record, and undo."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from swetui.agent.turn_events import CompactionNotice
from swetui.config import Settings
from swetui.engine.compaction import (
    CompactionPlan,
    Compactor,
    ModelCompactor,
    StructuralCompactor,
    active_compactions,
    undo,
)
from swetui.engine.compaction.current import bring_up_to_date
from swetui.engine.compaction.room import what_takes_the_room
from swetui.engine.compaction.warm import keep_warm
from swetui.engine.context import ContextEngine
from swetui.engine.events import CompactionFinished, EngineNotice
from swetui.engine.store import RecordEvent

Summarize = Callable[[str, str], Awaitable[str]]
"""(system prompt, text) → the model's summary."""


class SessionCompaction:
    """Compaction of one session's context, recorded in its log."""

    def __init__(self, engine: ContextEngine, settings: Settings, record: RecordEvent,
                 summarize: Summarize) -> None:
        self.engine = engine
        self.settings = settings
        self.record = record
        self.summarize = summarize
        self.held_until: int | None = None
        """When the last automatic compaction could not get under the threshold: the request
        size at which it may try again (it grew by what a settled compaction frees)."""
        self.fired = 0
        """Automatic compactions this process ran."""
        keep_warm(engine)  # a compaction then only gathers what each item holds

    def after_turn(self) -> None:
        """The running summary (once the history is layered) says where the session is."""
        bring_up_to_date(self.engine)

    @property
    def target_tokens(self) -> int:
        """The request size a compaction aims for."""
        return int(self.engine.settings.limit * self.settings.target_share)

    def compactor(self) -> Compactor:
        """The model writes summaries when a real model is configured; offline, structural."""
        spec = self.settings.compaction_model or self.engine.model
        if spec == "offline":
            return StructuralCompactor()
        return ModelCompactor(self.summarize)

    async def if_needed(self) -> None:
        """Before a request: compact automatically when the request has passed the threshold,
        down to the target. When it cannot get under the threshold it says once what takes
        the room, and waits until the request has grown by what a settled compaction frees,
        instead of folding a little on every request."""
        engine = self.engine
        budget = engine.budget()
        if not self.settings.auto_compact or not budget.needs_compaction:
            self.held_until = None  # under the threshold again (it settled, or items left)
            return
        if self.held_until is not None and budget.total < self.held_until:
            return
        self.fired += 1
        finished = await self.run("auto", target=self.target_tokens)
        if finished is not None:
            engine.bus.publish(CompactionNotice(
                turn=engine.turn,
                message=f"compacted {len(finished.folded)} items: "
                        f"{finished.tokens_before:,} → {finished.tokens_after:,} tokens"))
        after = engine.budget()
        if after.needs_compaction:
            told = self.held_until is not None
            self.held_until = after.total + max(1, after.threshold_tokens - self.target_tokens)
            if not told:
                engine.bus.publish(EngineNotice(message=what_takes_the_room(
                    engine, self.target_tokens, self.held_until), level="warning"))

    def preview(self, item_ids: list[str] | None = None,
                instructions: str | None = None) -> CompactionPlan:
        target = self.target_tokens if item_ids is None else None
        return self.compactor().plan(self.engine, item_ids=item_ids, instructions=instructions,
                                     target=target)

    async def run(self, trigger: str = "manual", instructions: str | None = None,
                  item_ids: list[str] | None = None,
                  target: int | None = None) -> CompactionFinished | None:
        """Fold items (all eligible, or the user's selection); None when nothing folds.
        A manual compaction of everything aims at the target too."""
        compactor = self.compactor()
        if target is None and item_ids is None:
            target = self.target_tokens
        plan = await compactor.plan_async(self.engine, item_ids=item_ids,
                                          instructions=instructions, target=target)
        if not plan.folds or plan.tokens_after >= plan.tokens_before:
            # Headers, summaries and the index cost tokens too: on a short session folding
            # can make the request bigger, and then it is not worth doing.
            if trigger != "auto":
                why = ("nothing is old enough to fold" if not plan.folds else
                       f"folding would not make the request smaller ({plan.tokens_before:,} "
                       f"→ {plan.tokens_after:,} tokens)")
                self.engine.bus.publish(EngineNotice(message=f"Nothing to compact: {why}.",
                                                     level="info"))
            return None
        finished = compactor.apply(self.engine, plan, trigger=trigger)
        self.record("compaction", {**finished.model_dump(mode="json"), "notes": plan.notes})
        return finished

    def undo(self) -> str:
        """Undo the newest compaction still in effect (also one from before a resume: the
        engine's items carry the record)."""
        active = active_compactions(self.engine)
        if not active:
            return "Nothing to undo: no compaction in effect."
        compaction_id = active[-1]
        undone = undo(self.engine, compaction_id)
        self.record("compaction_undone", {"compaction_id": compaction_id})
        return f"Compaction undone: {len(undone.restored)} items restored."
