import pytest

from swetui.engine.budget import BudgetSettings
from swetui.engine.context import ContextEngine, UnknownItem
from swetui.engine.events import BudgetChanged, ItemsChanged
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer
from swetui.engine.recount import recount_all

from .helpers import conversation


def file_item(item_id: str, text: str, layer: Layer = Layer.TASK) -> ContextItem:
    return ContextItem(id=item_id, kind=ItemKind.FILE, layer=layer, title=item_id, content=text)


def test_budget_tracks_every_change_and_matches_a_full_recount():
    engine = ContextEngine()
    engine.add(file_item("a", "alpha " * 200))
    engine.add(file_item("b", "beta " * 50))
    conversation(engine, 3)
    assert engine.budget().total == recount_all(engine).total
    before = engine.budget().total
    engine.drop("a")
    assert engine.budget().total < before
    assert engine.budget().total == recount_all(engine).total
    engine.restore("a")
    engine.pin("b")
    assert engine.budget().layer(Layer.PINNED).tokens == engine.get("b").tokens
    engine.set_content("b", "beta " * 500)
    assert engine.budget().total == recount_all(engine).total
    assert engine.budget().total == engine.assemble().total


def test_dropped_item_leaves_the_request_and_restore_brings_it_back():
    engine = ContextEngine()
    engine.add(file_item("a", "SECRET-MARKER content"))
    assert "SECRET-MARKER" in engine.assemble().request.canonical_json()
    engine.drop("a")
    assert "SECRET-MARKER" not in engine.assemble().request.canonical_json()
    assert engine.get("a").state is ItemState.DROPPED  # kept in the archive
    engine.restore("a")
    assert "SECRET-MARKER" in engine.assemble().request.canonical_json()


def test_edit_sends_the_edit_and_keeps_the_original():
    engine = ContextEngine()
    engine.add(file_item("a", "original text"))
    engine.edit("a", "edited text")
    item = engine.get("a")
    assert item.original == "original text" and item.edited
    request = engine.assemble().request.canonical_json()
    assert "edited text" in request and "original text" not in request
    engine.revert_edit("a")
    assert engine.get("a").content == "original text" and not engine.get("a").edited


def test_dropped_tool_result_keeps_call_and_result_paired():
    engine = ContextEngine()
    conversation(engine, 2)
    engine.drop("c1")
    messages = engine.assemble().request.messages
    calls = [c.id for m in messages for c in m.tool_calls]
    results = [m.tool_call_id for m in messages if m.role == "tool"]
    assert calls == results == ["call1", "call2"]
    dropped = next(m for m in messages if m.tool_call_id == "call1")
    assert "dropped by the user" in dropped.content


def test_events_are_published_once_per_batch():
    engine = ContextEngine()
    seen = []
    engine.bus.subscribe(seen.append)
    with engine.batch("loaded"):
        for index in range(5):
            engine.add(file_item(f"f{index}", "x"))
    assert [type(event) for event in seen] == [ItemsChanged, BudgetChanged]
    assert seen[0].ids == tuple(f"f{index}" for index in range(5))


def test_draft_prompt_counts_live():
    engine = ContextEngine()
    base = engine.budget().total
    budget = engine.set_draft("please refactor the parser module")
    assert budget.total > base
    assert engine.set_draft("").total == base


def test_threshold_and_layer_budgets():
    engine = ContextEngine(BudgetSettings(limit=10_000, threshold=0.5, reserve=1_000,
                                          memory=100))
    engine.add(file_item("m", "memory " * 300, layer=Layer.MEMORY))
    budget = engine.budget()
    assert budget.layer(Layer.MEMORY).over
    assert not budget.needs_compaction
    engine.add(file_item("big", "word " * 6_000))
    assert engine.budget().needs_compaction
    assert engine.budget().free == 10_000 - engine.budget().total - 1_000 or \
        engine.budget().free == 0


def test_calibration_ratio_from_measured_usage():
    engine = ContextEngine(model="openai:x")
    engine.record_usage(1_100, 1_000)
    assert engine.calibration() == pytest.approx(1.1)
    assert engine.budget().measured == 1_100
    assert engine.budget().calibrated_total == round(engine.budget().total * 1.1)


def test_unknown_item_is_a_clear_error():
    with pytest.raises(UnknownItem, match="no context item 'nope'"):
        ContextEngine().drop("nope")


def test_tool_result_whose_assistant_message_is_dropped_is_still_paired_and_counted():
    engine = ContextEngine()
    conversation(engine, 2)
    engine.drop("a1")
    result = engine.assemble()
    messages = result.request.messages
    bare = next(m for m in messages if m.role == "assistant" and not m.content)
    assert [c.id for c in bare.tool_calls] == ["call1"]
    calls = [c.id for m in messages for c in m.tool_calls]
    assert calls == [m.tool_call_id for m in messages if m.role == "tool"]
    assert engine.budget().total == result.total == recount_all(engine).total


def test_folded_tool_call_sends_shortened_arguments():
    engine = ContextEngine()
    conversation(engine, 1)
    long_text = "x = 1\n" * 500
    engine.update("c1", payload=engine.get("c1").call.model_copy(
        update={"arguments": {"path": "a.py", "content": long_text}}))
    full = engine.sent_tokens("c1")
    engine.update("c1", state=ItemState.COMPACTED, stub="wrote a.py (500 lines)")
    assert engine.sent_tokens("c1") < full / 10
    call = next(c for m in engine.assemble().request.messages for c in m.tool_calls)
    assert call.arguments["path"] == "a.py"
    assert "3,000 chars; recall c1" in call.arguments["content"]
    assert engine.budget().total == engine.assemble().total == recount_all(engine).total
    assert engine.cost_if(engine.get("c1"), state=ItemState.INCLUDED) == full
