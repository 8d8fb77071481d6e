"""A chunk boundary as a compaction: every earlier exchange, digest and summary goes to the
archive (sent in no form, recallable) and the handoff item takes their place, so the next
request starts from the handoff. Pinned items, the plan, memory and the running turn stay;
undo brings the history back like any compaction's."""

from __future__ import annotations

from swetui.engine.compaction.build import PlanBuilder, Snapshot
from swetui.engine.compaction.plan import CompactionPlan, price_fold, settle_tokens
from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind, ItemState, Layer
from swetui.engine.payloads import CompactionOutput, HandoffPayload


def chunk_plan(engine: ContextEngine, handoff: str, *, keep_from: int, title: str,
               chunk: int, path: str | None = None) -> CompactionPlan:
    """Archive the history of turns before `keep_from` (and earlier summaries, indexes and
    handoffs), and add `handoff` as the summary the next requests start from."""
    snap = Snapshot.of(engine)
    builder = PlanBuilder(engine, snap, engine.new_id("k"), "chunk")
    builder.anchors = {item.source.tool_call_id for item in snap.items
                       if item.pinned and item.kind is ItemKind.TOOL_CALL}
    for item in snap.items:
        history = item.layer is Layer.HISTORY and item.turn_created < keep_from
        digest = isinstance(item.payload, CompactionOutput)
        if not (history or digest) or item.pinned or builder.anchored(item):
            continue
        if item.state is ItemState.ARCHIVED or item.id in builder.folds:
            continue
        builder.folds[item.id], builder.priced[item.id] = price_fold(
            engine, item, item.stub, builder.id, ItemState.ARCHIVED)
    builder.new(ItemKind.SUMMARY, Layer.SUMMARY, title, handoff,
                HandoffPayload(compaction_id=builder.id, turn=engine.turn, chunk=chunk,
                               path=path))
    plan = CompactionPlan(compaction_id=builder.id, compactor="chunk",
                          folds=list(builder.folds.values()), created=builder.created,
                          notes=builder.notes)
    plan._priced = builder.priced
    settle_tokens(engine, plan)
    return plan
