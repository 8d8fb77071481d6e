"""The laws of compaction, for any session, any pins and any target: compact then undo
restores the exact request; a pinned item is never folded or dropped; the budget after
applying is exactly what the plan said."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.budget import BudgetSettings
from swetui.engine.compaction import StructuralCompactor, undo
from swetui.engine.compaction.chunk import chunk_plan
from swetui.engine.compaction.sample import SessionMaker
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer

compactor = StructuralCompactor()


def session(turns: int, seed: int) -> ContextEngine:
    engine = ContextEngine(BudgetSettings(limit=400_000, reserve=8_000))
    maker = SessionMaker(engine, seed)
    for _ in range(turns):
        maker.turn(lines=6)
        if engine.turn % 4 == 1:
            maker.retrieved(maker.rng.choice(maker.files))
    engine.add(ContextItem(id="plan", kind=ItemKind.PLAN, layer=Layer.MEMORY, title="Plan",
                           content="Plan (todo):\n- [>] fix parse_config_3"))
    return engine


@settings(max_examples=15)  # each example builds a session: keep the suite fast
@given(turns=st.integers(min_value=1, max_value=20), seed=st.integers(0, 1_000),
       pins=st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
       target=st.one_of(st.none(), st.integers(min_value=0, max_value=40_000)))
def test_compact_then_undo_restores_the_request_and_pins_are_never_folded(turns, seed, pins,
                                                                         target):
    engine = session(turns, seed)
    items = list(engine)
    pinned = {items[index % len(items)].id for index in pins}
    for item_id in pinned:
        engine.pin(item_id)
    before = engine.assemble().request.canonical_json()
    total = engine.budget().total
    states = {item.id: (item.state, item.pinned, item.content) for item in engine}

    plan = compactor.plan(engine, target=target)
    assert not pinned & {fold.id for fold in plan.folds}
    if plan.empty:
        return
    compactor.apply(engine, plan)
    assert engine.budget().total == plan.tokens_after
    for item_id in [*pinned, "plan"]:
        item = engine.get(item_id)
        assert item.state is states[item_id][0] and item.sent
        assert item.pinned or item_id == "plan"

    undo(engine)
    assert engine.assemble().request.canonical_json() == before
    assert engine.budget().total == total
    for item_id, (state, is_pinned, content) in states.items():
        item = engine.get(item_id)
        assert (item.state, item.pinned, item.content) == (state, is_pinned, content)
    assert all(engine.get(item.id).state is ItemState.DROPPED for item in plan.created)


@settings(max_examples=10)
@given(first=st.integers(min_value=8, max_value=12), more=st.integers(min_value=1, max_value=8),
       seed=st.integers(0, 1_000))
def test_a_later_compaction_that_archives_stubs_undoes_back_to_each_earlier_request(first, more,
                                                                                   seed):
    engine = session(first, seed)
    start = {item.id: (item.state, item.stub, item.folded, item.payload) for item in engine}
    first_id = compactor.apply(engine, compactor.plan(engine)).compaction_id
    maker = SessionMaker(engine, seed + 1)
    for _ in range(more):
        maker.turn(lines=6)
    middle = engine.assemble().request.canonical_json()
    added = {item.id: (item.state, item.stub, item.folded, item.payload) for item in engine
             if item.id not in start and item.created_by is None}
    plan = compactor.plan(engine)
    if not plan.empty:
        compactor.apply(engine, plan)
        # a call whose exchange is down to its header sends nothing, not even its stub
        archived = [fold for fold in plan.folds if fold.state is ItemState.ARCHIVED]
        assert all(not engine.get(fold.id).sent for fold in archived)
        undo(engine)
    assert engine.assemble().request.canonical_json() == middle
    undo(engine, first_id)
    # every item is back as it was before the compaction that first folded it
    for item_id, before in [*start.items(), *added.items()]:
        item = engine.get(item_id)
        assert (item.state, item.stub, item.folded, item.payload) == before, item_id


@settings(max_examples=15)
@given(turns=st.integers(min_value=1, max_value=16), seed=st.integers(0, 1_000),
       pins=st.lists(st.integers(min_value=0, max_value=10_000), max_size=4),
       compact_first=st.booleans())
def test_a_chunk_boundary_archives_the_history_keeps_pins_and_the_plan_and_undoes(
        turns, seed, pins, compact_first):
    engine = session(turns, seed)
    if compact_first:
        compactor.apply(engine, compactor.plan(engine))
    items = list(engine)
    pinned = {items[index % len(items)].id for index in pins}
    for item_id in pinned:
        engine.pin(item_id)
    before = engine.assemble().request.canonical_json()
    states = {item.id: (item.state, item.stub, item.folded, item.payload) for item in engine}
    plan = chunk_plan(engine, "Handoff from chunk 1", keep_from=engine.turn + 1,
                      title="Handoff from chunk 1", chunk=1)
    compactor.apply(engine, plan)
    request = engine.assemble().request
    assert "Handoff from chunk 1" in request.system and "fix parse_config_3" in request.context
    anchors = {engine.get(item_id).source.tool_call_id for item_id in pinned}
    for item in engine:
        if item.id in pinned or item.id == "plan":
            assert item.sent
        elif anchors.intersection(item.call_ids):
            # it carries a pinned call, which is only sent paired with it: left as it was
            assert item.state is states[item.id][0]
        elif item.layer is Layer.HISTORY and item.id in states:
            assert not item.sent  # the history is archived, sent in no form
    undo(engine)
    assert engine.assemble().request.canonical_json() == before
    for item_id, state in states.items():
        item = engine.get(item_id)
        assert (item.state, item.stub, item.folded, item.payload) == state
