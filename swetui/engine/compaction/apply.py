"""Applying a compaction plan and undoing it.

Applying is one engine batch (the gauge updates once). Each folded item remembers (its
`folded` record) the compaction that folded it and its state before; each created item
carries its compaction's id (its payload's `compaction_id`). So undo needs no side table,
survives a resumed session, and drops the created items (never deletes them) while every
folded item gets its previous state back.
"""

from __future__ import annotations

import time

from swetui.engine.compaction.plan import (
    CompactionPlan,
    Fold,
    folded_changes,
)
from swetui.engine.context import ContextEngine, Priced, UnknownItem
from swetui.engine.events import CompactionFinished, CompactionStarted, CompactionUndone
from swetui.engine.gc_pause import gc_paused
from swetui.engine.items import ContextItem, ItemState


class StalePlan(ValueError):
    """The context changed after the plan was made: plan again."""


class NoCompaction(LookupError):
    """There is no (such) compaction to undo."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no compaction to undo"


def _checked(engine: ContextEngine, plan: CompactionPlan) -> list[Priced]:
    """Each fold as the plan will put it in place, once the plan is known to still fit the
    context (StalePlan otherwise)."""
    priced, planned = [], plan._priced
    for fold in plan.folds:
        try:
            item = engine.get(fold.id)
        except UnknownItem:
            raise StalePlan(f"{fold.id} is gone since the compaction was planned; "
                            "plan again") from None
        if item.content_hash != fold.content_hash or item.state is not fold.previous_state \
                or item.pinned:
            raise StalePlan(f"{fold.id} changed since the compaction was planned; plan again")
        priced.append(_priced(engine, plan, fold, item, planned))
    for created in plan.created:
        if created.id in engine:
            raise StalePlan(f"plan {plan.compaction_id} was already applied")
    return priced


def _priced(engine: ContextEngine, plan: CompactionPlan, fold: Fold, item: ContextItem,
            planned: dict[str, Priced]) -> Priced:
    """The folded item as planned (`planned`: the plan's priced folds), or priced afresh if
    the item or the fold changed since (a plan is a public object: its folds can be edited
    before it is applied)."""
    priced = planned.get(fold.id)
    if priced is not None and priced.base is item and priced.engine is engine:
        folded = priced.item
        record = folded.folded
        if (record is not None and folded.state is fold.state and folded.stub == fold.stub
                and record.state is fold.previous_state and record.stub == fold.previous_stub
                and record.previous is item.folded
                and record.compaction_id == plan.compaction_id):
            return priced
    return engine.price(item, **folded_changes(plan.compaction_id, fold, item))


def apply(engine: ContextEngine, plan: CompactionPlan,
          trigger: str = "manual") -> CompactionFinished:
    """Fold and create as planned, in one batch; publishes CompactionStarted/Finished."""
    started = time.perf_counter()
    folds = _checked(engine, plan)
    before = engine.budget().total
    engine.bus.publish(CompactionStarted(compaction_id=plan.compaction_id, trigger=trigger,
                                         items=len(plan.folds), tokens_before=before))
    with gc_paused(), engine.batch("compacted"):
        engine.commit(folds, reason="compacted")
        for item in plan.created:
            engine.add(item, reason="compacted")
    finished = CompactionFinished(
        compaction_id=plan.compaction_id, trigger=trigger,
        folded=tuple(fold.id for fold in plan.folds),
        created=tuple(item.id for item in plan.created),
        tokens_before=before, tokens_after=engine.budget().total,
        duration_ms=plan.planned_ms + (time.perf_counter() - started) * 1000)
    engine.bus.publish(finished)
    return finished


def priced_folds(engine: ContextEngine, plan: CompactionPlan) -> list[Priced]:
    """Each folded item as the plan will put it in place (what a preview assembles on the
    side: `engine.assemble(changes=…, added=plan.created)`)."""
    planned = plan._priced
    return [_priced(engine, plan, fold, engine.get(fold.id), planned) for fold in plan.folds]


def _number(compaction_id: str) -> int:
    digits = compaction_id.lstrip("abcdefghijklmnopqrstuvwxyz")
    return int(digits) if digits.isdigit() else 0


def active_compactions(engine: ContextEngine) -> list[str]:
    """Ids of the compactions in effect (applied, not undone), oldest first."""
    found: set[str] = set()
    for item in engine:
        if item.folded is not None:
            found.add(item.folded.compaction_id)
        created = item.created_by
        if created is not None and not created.undone:
            found.add(created.compaction_id)
    return sorted(found, key=lambda cid: (_number(cid), cid))


def undo(engine: ContextEngine, compaction_id: str | None = None) -> CompactionUndone:
    """Undo the last compaction (or `compaction_id`, and any made after it): folded items get
    their previous state back, created items are dropped (kept in the archive)."""
    active = active_compactions(engine)
    if not active:
        raise NoCompaction("no compaction to undo in this session")
    target = compaction_id or active[-1]
    if target not in active:
        raise NoCompaction(f"no compaction {target!r} in effect (in effect: {', '.join(active)})")
    undone: CompactionUndone | None = None
    for cid in reversed(active[active.index(target):]):
        undone = _undo_one(engine, cid)
    assert undone is not None
    return undone


def _undo_one(engine: ContextEngine, compaction_id: str) -> CompactionUndone:
    restored: list[str] = []
    with engine.batch("compaction undone"):
        for item in engine:
            record, created = item.folded, item.created_by
            if record is not None and record.compaction_id == compaction_id:
                # folded before by an earlier compaction (a stub later archived): that
                # compaction's record comes back with its state
                engine.update(item.id, state=record.state, stub=record.stub,
                              folded=record.previous, reason="compaction undone")
                restored.append(item.id)
            elif (created is not None and created.compaction_id == compaction_id
                    and not created.undone):
                engine.update(item.id, state=ItemState.DROPPED,
                              payload=created.model_copy(update={"undone": True}),
                              reason="compaction undone")
    event = CompactionUndone(compaction_id=compaction_id, restored=tuple(restored))
    engine.bus.publish(event)
    return event
