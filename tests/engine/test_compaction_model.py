"""Model-driven compaction (summaries from the summarising model, structural fallback) and
`recall` of archived exchanges."""

from __future__ import annotations

import pytest

from swetui.engine.budget import BudgetSettings
from swetui.engine.compaction import (
    ModelCompactor,
    RecallError,
    StructuralCompactor,
    parse_reply,
    recall,
    undo,
)
from swetui.engine.compaction.model import SUMMARY_SYSTEM
from swetui.engine.compaction.sample import SessionMaker
from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind
from tests.engine.helpers import role, turn_of


def session(turns: int = 14) -> ContextEngine:
    engine = ContextEngine(BudgetSettings(limit=400_000, reserve=8_000))
    maker = SessionMaker(engine, 11)
    for _ in range(turns):
        maker.turn(lines=30)
    return engine


def reply_for(text: str) -> str:
    turns = sorted({int(line[5:].split()[0]) for line in text.splitlines()
                    if line.startswith("=== t")})
    lines = "\n".join(f"t{turn}: model summary of exchange {turn}" for turn in turns)
    return f"SUMMARY:\nWe refactored the parser; next: finish the tests.\nEXCHANGES:\n{lines}"


async def test_model_summaries_replace_the_structural_ones():
    engine = session()
    seen: list[tuple[str, str]] = []

    async def summarize(system: str, text: str) -> str:
        seen.append((system, text))
        return reply_for(text)

    compactor = ModelCompactor(summarize)
    plan = await compactor.plan_async(engine, instructions="keep the parser design")
    assert plan.compactor == "model" and not plan.notes
    system, text = seen[0]
    assert system == SUMMARY_SYSTEM and "file" in system and "pleasantries" in system
    assert "keep the parser design" in text and "src/" in text
    running = next(i for i in plan.created if i.kind is ItemKind.SUMMARY)
    assert running.content.startswith("We refactored the parser")
    sent_summaries = [i for i in plan.created if role(i) == "summary"]
    assert all("model summary of exchange" in i.content for i in sent_summaries)

    compactor.apply(engine, plan)
    request = engine.assemble().request
    assert "We refactored the parser" in request.context  # after the stable history
    assert engine.budget().total == plan.tokens_after


@pytest.mark.parametrize("failure", ["raise", "malformed"])
async def test_a_failed_or_malformed_reply_falls_back_to_structural(failure):
    engine = session()

    async def summarize(system: str, text: str) -> str:
        if failure == "raise":
            raise TimeoutError("model timed out")
        return "Sure! Here is a summary of our chat :)"

    plan = await ModelCompactor(summarize).plan_async(engine)
    structural = StructuralCompactor().plan(session())
    assert plan.compactor == "structural"
    assert any("structural summary instead" in note for note in plan.notes)
    assert plan.folds and abs(plan.reduction - structural.reduction) < 1.0
    if failure == "raise":
        assert "timed out" in plan.notes[0]


def test_parse_reply_reads_the_sections():
    summary, per_turn = parse_reply("SUMMARY:\nAll good.\nEXCHANGES:\nt3: read a.py\n**t4** - ok")
    assert summary == "All good." and per_turn == {3: "read a.py", 4: "ok"}
    assert parse_reply("no sections here") is None


def test_recall_gives_header_summary_and_full_text_of_a_folded_exchange():
    engine = session(12)
    original = [i for i in engine if i.turn_created == 2]
    compactor = StructuralCompactor()
    compactor.apply(engine, compactor.plan(engine))
    header = next(i for i in engine if role(i) == "header" and turn_of(i) == 2)
    read = next(i for i in original if i.kind is ItemKind.TOOL_CALL)

    assert recall(engine, header.id, "header") == header.content
    assert recall(engine, "t2", "summary").startswith("t2 summary:")
    full = recall(engine, read.id, "full")
    assert all(item.content in full for item in original)
    assert recall(engine, "2", "full") == full


def test_recall_of_an_unknown_id_says_what_ids_look_like():
    engine = session(3)
    with pytest.raises(KeyError) as error:
        recall(engine, "zz9", "full")
    assert isinstance(error.value, RecallError)
    assert "zz9" in str(error.value) and "t7" in str(error.value)
    with pytest.raises(KeyError, match="no exchange t99"):
        recall(engine, "t99", "header")
    with pytest.raises(ValueError, match="header, summary or full"):
        recall(engine, "t1", "everything")


def test_undo_with_nothing_to_undo_is_a_clear_error():
    with pytest.raises(LookupError, match="no compaction"):
        undo(session(2))


async def test_both_compactors_share_one_interface_and_the_model_one_applies_and_undoes():
    from swetui.engine.compaction import Compactor

    async def summarize(system: str, text: str) -> str:
        return reply_for(text)

    model = ModelCompactor(summarize)
    assert isinstance(StructuralCompactor(), Compactor) and isinstance(model, Compactor)
    engine = session()
    before = engine.assemble().request.canonical_json()
    preview = model.plan(engine)
    assert preview.folds and any("model writes the summaries" in n for n in preview.notes)
    finished = model.apply(engine, await model.plan_async(engine), trigger="manual")
    assert finished.reduction > 0
    model.undo(engine)
    assert engine.assemble().request.canonical_json() == before
