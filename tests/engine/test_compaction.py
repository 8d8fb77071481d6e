"""Structural compaction: reduction, full retention of paths and identifiers, the history
shape, the active state left intact, events, and undo to the exact previous request."""

from __future__ import annotations

import pytest

from swetui.engine.budget import BudgetSettings
from swetui.engine.compaction import (
    StalePlan,
    StructuralCompactor,
    active_compactions,
    identifiers,
    undo,
)
from swetui.engine.compaction.plan import CompactionPlan, Fold
from swetui.engine.compaction.sample import SessionMaker, make_session
from swetui.engine.compaction.text import argument_text
from swetui.engine.context import ContextEngine
from swetui.engine.events import (
    BudgetChanged,
    CompactionFinished,
    CompactionStarted,
    CompactionUndone,
)
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer
from swetui.engine.payloads import ToolCallPayload
from swetui.engine.recount import recount_all
from tests.engine.helpers import role, turn_of

compactor = StructuralCompactor()


def session(turns: int, seed: int = 3) -> ContextEngine:
    engine = ContextEngine(BudgetSettings(limit=400_000, reserve=8_000))
    maker = SessionMaker(engine, seed)
    for _ in range(turns):
        maker.turn(lines=40)
    return engine


def request_text(engine: ContextEngine) -> str:
    request = engine.assemble().request
    return "\n".join([request.system, *(m.content for m in request.messages), request.context])


def original_identifiers(items: list[ContextItem]) -> set[str]:
    found: set[str] = set()
    for item in items:
        found |= identifiers(item.content) | identifiers(argument_text(item))
        if item.source.path:
            found |= identifiers(item.source.path)
    return found


@pytest.fixture(scope="module")
def big() -> ContextEngine:
    return make_session(200_000)


def test_200k_session_reduces_by_60_percent_and_keeps_every_path_and_identifier(big):
    engine = big.model_copy() if hasattr(big, "model_copy") else big
    before_items = {item.id: item for item in engine}
    plan = compactor.plan(engine)
    assert plan.tokens_before >= 200_000
    assert plan.reduction >= 60.0
    folded = [before_items[fold.id] for fold in plan.folds]
    wanted = original_identifiers(folded)
    assert len(wanted) > 500  # a realistic session: many distinct paths and names

    finished = compactor.apply(engine, plan, trigger="auto")

    assert engine.budget().total == plan.tokens_after == finished.tokens_after
    assert finished.reduction >= 60.0
    missing = wanted - identifiers(request_text(engine))
    assert not missing, sorted(missing)[:20]
    undo(engine)


def test_undo_restores_the_exact_previous_request():
    engine = session(30)
    before = engine.assemble().request.canonical_json()
    total = engine.budget().total
    count = len(engine)
    finished = compactor.apply(engine, compactor.plan(engine))
    assert engine.assemble().request.canonical_json() != before

    undone = undo(engine)

    assert undone.compaction_id == finished.compaction_id
    assert set(undone.restored) == set(finished.folded)
    assert engine.assemble().request.canonical_json() == before
    assert engine.budget().total == total
    # nothing is deleted: the created items stay in the archive, dropped
    assert len(engine) == count + len(finished.created)
    assert all(engine.get(i).state is ItemState.DROPPED for i in finished.created)


def test_history_shape_last_five_full_summaries_6_to_10_headers_older():
    engine = session(25)
    compactor.apply(engine, compactor.plan(engine))
    sent = [i for i in engine if i.sent]
    full_turns = {i.turn_created for i in sent if i.kind is ItemKind.USER_MESSAGE}
    assert full_turns == {21, 22, 23, 24, 25}
    headers = [i for i in sent if role(i) == "header"]
    summaries = [i for i in sent if role(i) == "summary"]
    assert sorted(turn_of(i) for i in headers) == list(range(1, 21))
    assert sorted(turn_of(i) for i in summaries) == list(range(16, 21))
    assert all(engine.counter.count(h.content) <= 12 for h in headers)
    assert all(engine.counter.count(s.content) <= 120 for s in summaries)
    running = [i for i in sent if i.kind is ItemKind.SUMMARY]
    assert len(running) == 1 and engine.counter.count(running[0].content) <= 300
    assert "Objective:" in running[0].content and "Next steps:" in running[0].content
    # archived summaries of older exchanges are kept for recall
    archived = [i for i in engine if role(i) == "summary" and not i.sent]
    assert sorted(turn_of(i) for i in archived) == list(range(1, 16))


def test_old_tool_outputs_become_one_line_results_with_a_recall_id():
    engine = session(12)
    compactor.apply(engine, compactor.plan(engine))
    old_read = next(i for i in engine if i.kind is ItemKind.TOOL_CALL and i.turn_created == 5
                    and i.call.name == "read_file")
    assert old_read.state is ItemState.COMPACTED
    assert "\n" not in old_read.stub and old_read.id in old_read.stub
    assert old_read.source.path in old_read.stub
    assert old_read.content  # the full output stays in the archive
    # beyond the last ten exchanges only the header is sent: the stubs fold into it
    oldest = [i for i in engine if i.kind is ItemKind.TOOL_CALL and i.turn_created == 1]
    assert oldest and all(i.state is ItemState.ARCHIVED and not i.sent for i in oldest)
    assert all(f"[{i.id}]" not in request_text(engine) for i in oldest)
    assert oldest[0].content  # still in the archive


def test_pinned_items_and_the_current_turn_are_never_touched():
    engine = session(20)
    pinned = next(i for i in engine if i.kind is ItemKind.TOOL_CALL and i.turn_created == 2)
    engine.pin(pinned.id)
    current = [i.id for i in engine if i.turn_created == engine.turn]
    plan = compactor.plan(engine)
    folded = {fold.id for fold in plan.folds}
    assert pinned.id not in folded and not folded & set(current)
    compactor.apply(engine, plan)
    assert engine.get(pinned.id).state is ItemState.INCLUDED
    assert pinned.content in request_text(engine)


def test_apply_is_one_batch_with_started_and_finished_events():
    engine = session(15)
    seen = []
    engine.bus.subscribe(seen.append)
    finished = compactor.apply(engine, compactor.plan(engine), trigger="manual")
    kinds = [type(event) for event in seen]
    assert kinds[0] is CompactionStarted and kinds[-1] is CompactionFinished
    assert kinds.count(BudgetChanged) == 1
    assert seen[-1] == finished and finished.trigger == "manual" and finished.duration_ms > 0


def test_preview_changes_nothing_and_a_stale_plan_is_refused():
    engine = session(15)
    before = engine.assemble().request.canonical_json()
    plan = compactor.plan(engine)
    assert plan.folds and "→" in plan.describe()
    assert engine.assemble().request.canonical_json() == before
    victim = plan.folds[0].id
    engine.set_content(victim, "changed by the user")
    with pytest.raises(StalePlan):
        compactor.apply(engine, plan)


def test_identical_tool_outputs_are_folded_to_the_latest():
    engine = session(3)
    output = "\n".join(f"line {n} of a long log" for n in range(40))
    for turn, item_id in ((2, "dup1"), (3, "dup2")):
        engine.add(ContextItem(id=item_id, kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                               title="bash", content=output, turn_created=turn,
                               payload=ToolCallPayload(name="bash", arguments={"command": "make"})))
    engine.turn = 4
    plan = compactor.plan(engine)
    folds = {fold.id: fold for fold in plan.folds}
    assert "dup1" in folds and "dup2" not in folds
    assert "same output as dup2" in folds["dup1"].stub


def test_old_retrieved_files_leave_unless_pinned_or_still_edited():
    engine = session(16)
    maker_files = {}
    for name, turn in (("old.py", 2), ("pinned.py", 2), ("edited.py", 2), ("fresh.py", 14)):
        maker_files[name] = engine.add(ContextItem(
            id=f"f-{name}", kind=ItemKind.FILE, layer=Layer.TASK, title=name, content="x = 1",
            turn_created=turn, turn_last_used=turn, source={"path": name}))
    engine.pin("f-pinned.py")
    engine.add(ContextItem(id="edit", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                           title="edit", content="Edited edited.py", turn_created=16,
                           source={"path": "edited.py"},
                           payload=ToolCallPayload(name="edit_file",
                                                   arguments={"path": "edited.py"})))
    folded = {fold.id for fold in compactor.plan(engine).folds}
    assert "f-old.py" in folded
    assert not {"f-pinned.py", "f-edited.py", "f-fresh.py"} & folded


def test_selection_folds_only_the_chosen_items():
    engine = session(8)
    chosen = [i.id for i in engine if i.turn_created == 7 and i.kind is ItemKind.TOOL_CALL]
    pinned = next(i.id for i in engine if i.turn_created == 6)
    engine.pin(pinned)
    plan = compactor.plan(engine, item_ids=[*chosen, pinned, "nope"])
    assert {fold.id for fold in plan.folds} - {i.id for i in plan.created} >= set(chosen)
    assert pinned not in {fold.id for fold in plan.folds}
    assert any("pinned" in note for note in plan.notes)
    assert any("nope" in note for note in plan.notes)
    compactor.apply(engine, plan, trigger="selection")
    assert all(engine.get(i).state is ItemState.COMPACTED for i in chosen)
    assert engine.get(next(i.id for i in engine if i.turn_created == 6
                           and not i.pinned)).state is ItemState.INCLUDED


def test_a_second_compaction_demotes_summaries_merges_the_index_and_undo_cascades():
    engine = session(16, seed=5)
    first = compactor.apply(engine, compactor.plan(engine))
    maker = SessionMaker(engine, 9)
    for _ in range(6):
        maker.turn(lines=40)
    before_second = engine.assemble().request.canonical_json()
    second = compactor.apply(engine, compactor.plan(engine))
    sent = [i for i in engine if i.sent]
    summaries = sorted(turn_of(i) for i in sent if role(i) == "summary")
    assert summaries == list(range(13, 18))
    assert len([i for i in sent if role(i) == "index"]) == 1
    assert len([i for i in sent if i.kind is ItemKind.SUMMARY]) == 1
    assert active_compactions(engine) == [first.compaction_id, second.compaction_id]
    undone = undo(engine)
    assert undone.compaction_id == second.compaction_id
    assert engine.assemble().request.canonical_json() == before_second
    seen = []
    engine.bus.subscribe(seen.append, CompactionUndone)
    compactor.apply(engine, compactor.plan(engine))
    undo(engine, first.compaction_id)  # undoes the later one too
    assert [event.compaction_id for event in seen][-1] == first.compaction_id
    assert active_compactions(engine) == []


def test_nothing_to_compact_gives_an_empty_plan():
    engine = session(4)
    plan = compactor.plan(engine)
    assert plan.empty and plan.tokens_after == plan.tokens_before
    assert "nothing to fold" in plan.describe()


def test_identifiers_finds_paths_and_code_names_not_prose():
    text = ("Fixed parse_args in src/cli/main.py (see ContextEngine.assemble and "
            "README.md); e.g. the value is 3.14 and the Tests pass, getElementById too.")
    assert identifiers(text) == {"parse_args", "src/cli/main.py", "ContextEngine.assemble",
                                 "README.md", "getElementById"}


def test_at_most_200_headers_are_sent_and_older_names_move_to_the_index():
    engine = ContextEngine(BudgetSettings(limit=2_000_000, reserve=8_000))
    maker = SessionMaker(engine, 2)
    for _ in range(212):
        maker.turn(lines=4)
    before = {item.id: item for item in engine}
    plan = compactor.plan(engine)
    compactor.apply(engine, plan)
    headers = [i for i in engine if role(i) == "header"]
    sent = sorted(turn_of(i) for i in headers if i.sent)
    assert len(sent) == 200 and sent[0] == 8  # 207 folded exchanges, the oldest 7 archived
    wanted = original_identifiers([before[fold.id] for fold in plan.folds])
    assert not wanted - identifiers(request_text(engine))


def test_a_compaction_can_be_undone_after_the_session_is_resumed(tmp_path):
    from swetui.config import Settings
    from swetui.engine.workspace import open_workspace

    workspace = open_workspace(tmp_path, Settings(), [])
    maker = SessionMaker(workspace.engine, 1)
    for _ in range(12):
        workspace.record("turn_started", {"turn": workspace.engine.turn + 1})
        maker.turn(lines=10)
    before = workspace.engine.assemble().request.canonical_json()
    finished = compactor.apply(workspace.engine, compactor.plan(workspace.engine))
    session_id = workspace.session_id
    workspace.close()

    resumed = open_workspace(tmp_path, Settings(), [], resume=session_id)
    assert active_compactions(resumed.engine) == [finished.compaction_id]
    undo(resumed.engine)
    assert resumed.engine.assemble().request.canonical_json() == before
    resumed.close()


def test_apply_reuses_the_planned_items_and_reprices_what_changed_since():
    engine = session(14)
    plan = compactor.plan(engine)
    priced = plan._priced
    tool_folds = [f for f in plan.folds if engine.get(f.id).kind is ItemKind.TOOL_CALL
                  and f.state is ItemState.COMPACTED]
    retitled, restubbed = tool_folds[0], tool_folds[1]
    # changed after planning without touching content or state: apply folds the new item
    engine.update(retitled.id, title="renamed after the plan")
    restubbed.stub = "edited stub in the preview"
    restubbed.tokens_after = engine.cost_if(engine.get(restubbed.id),
                                            state=ItemState.COMPACTED, stub=restubbed.stub)
    plan.tokens_after += restubbed.tokens_after - priced[restubbed.id].cost
    compactor.apply(engine, plan)
    assert engine.get(retitled.id).title == "renamed after the plan"
    assert engine.get(retitled.id).state is ItemState.COMPACTED
    assert engine.get(restubbed.id).stub == "edited stub in the preview"
    reused = [f.id for f in plan.folds if f.id not in (retitled.id, restubbed.id)]
    assert all(engine.get(item_id) is priced[item_id].item for item_id in reused)
    assert plan.tokens_after == engine.budget().total == recount_all(engine).total
    assert engine.assemble().total == engine.budget().total


def test_identifiers_are_the_same_cold_and_warm():
    from swetui.engine.compaction.text import clear_caches

    text = ("see src/core/config_1.py and ParseConfig.load_value; self.resolve_index_3(x) "
            "plain words only, a-b, HTTPServer x.y _private v2.0 --flag path/to/")
    clear_caches()
    cold = identifiers(text)
    assert identifiers(text) == cold
    clear_caches()
    assert identifiers(text + " more") == cold
    assert {"src/core/config_1.py", "ParseConfig.load_value", "HTTPServer", "_private"} <= cold
    assert "plain" not in cold and "words" not in cold


def test_engine_price_and_commit_keep_the_totals_exact_and_refuse_stale_changes():
    from swetui.engine.context import StaleChange

    engine = session(3)
    call = next(item for item in engine if item.kind is ItemKind.TOOL_CALL)
    message = next(item for item in engine if item.kind is ItemKind.USER_MESSAGE)
    changes = [engine.price(call, state=ItemState.COMPACTED, stub="one line",
                            payload=call.call.model_copy(update={"summary": "noted"})),
               engine.price(message, state=ItemState.DROPPED)]
    assert changes[0].cost == engine.cost_if(call, state=ItemState.COMPACTED, stub="one line")
    assert changes[1].cost == 0
    assert engine.get(call.id) is call  # pricing changes nothing
    engine.commit(changes, reason="test")
    assert engine.get(call.id).stub == "one line" and engine.sent_tokens(call.id) == changes[0].cost
    assert engine.budget().total == recount_all(engine).total == engine.assemble().total
    with pytest.raises(StaleChange):  # the item changed since it was priced
        engine.commit([engine.price(call, state=ItemState.INCLUDED)])
    with pytest.raises(ValueError):
        engine.price(call, content="new text")
    assert engine.get(call.id) is changes[0].item


def test_describe_signs_the_change_once() -> None:
    def plan(before: int, after: int) -> CompactionPlan:
        fold = Fold(id="x", title="x", previous_state=ItemState.INCLUDED, content_hash="h",
                    tokens_before=10, tokens_after=2)
        return CompactionPlan(compaction_id="c", folds=[fold], tokens_before=before,
                              tokens_after=after)

    assert plan(1000, 880).describe().endswith("(−12%)")
    assert plan(1000, 1010).describe().endswith("(+1%)")
    assert plan(1000, 1000).describe().endswith("(0%)")
    assert "−-" not in plan(1000, 1010).describe()
