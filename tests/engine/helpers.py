"""Builders for engine tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.payloads import (
    AssistantPayload,
    ExchangePayload,
    ReferenceIndexPayload,
    RunningSummaryPayload,
    ToolCallPayload,
)
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols import lookup
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap


def role(item: ContextItem) -> str | None:
    """What a compaction created the item as: header, summary, running or index."""
    match item.payload:
        case ExchangePayload(form=form):
            return form
        case RunningSummaryPayload():
            return "running"
        case ReferenceIndexPayload():
            return "index"
    return None


def turn_of(item: ContextItem) -> int:
    """The turn a compaction-created item stands for."""
    assert item.created_by is not None, f"{item.id} was not created by a compaction"
    return item.created_by.turn


def conversation(engine: ContextEngine, turns: int, *, body: str = "some text") -> None:
    """Add `turns` exchanges: user message, assistant calling read_file, the tool result."""
    for turn in range(1, turns + 1):
        engine.turn = turn
        call_id = f"call{turn}"
        engine.add(ContextItem(id=f"u{turn}", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                               title=f"question {turn}", content=f"question {turn}: {body}",
                               origin=Origin.USER, turn_created=turn))
        engine.add(ContextItem(id=f"a{turn}", kind=ItemKind.ASSISTANT_MESSAGE,
                               layer=Layer.HISTORY, title=f"answer {turn}",
                               content=f"Reading file{turn}.py", origin=Origin.AGENT,
                               turn_created=turn,
                               payload=AssistantPayload(tool_call_ids=(call_id,))))
        engine.add(ContextItem(id=f"c{turn}", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                               title=f"read_file file{turn}.py", content=f"{body} {turn}",
                               origin=Origin.AGENT, turn_created=turn,
                               source=Source(path=f"file{turn}.py", tool_call_id=call_id),
                               payload=ToolCallPayload(
                                   name="read_file", arguments={"path": f"file{turn}.py"})))


def attached(root: Path, text: str) -> dict[str, str]:
    """What retrieval attaches for `text` with the workspace's symbol map built: path → the
    source lines shown."""
    symbols = SymbolMap(root)
    symbols.build()
    result = retrieve(root, text, ContextEngine(), turn=1, symbols=symbols.index())
    return {item.source.path or item.title: "\n".join(
        line.split("\t", 1)[1] for line in item.content.splitlines() if "\t" in line)
        for item in result.items if item.kind is ItemKind.SPAN}


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write `files` (relative path → text) under `root`, folders made; `root` back."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def mapped_workspace(root: Path, files: dict[str, str]) -> SymbolIndex:
    """Write `files` (relative path → text) under `root` and build its symbol map."""
    symbols = SymbolMap(write_files(root, files))
    symbols.build()
    return symbols.index()


@pytest.fixture
def decided(monkeypatch: pytest.MonkeyPatch) -> None:
    """A described request's first pick is attached as code however sure the ranking is:
    for tests of what comes with a chosen definition (its callees, its neighbours, its
    span) in workspaces of a few definitions, where two saying the same words leave the
    ranking short of `lookup.SURE`. Whether it is attached or shortlisted is tested in
    test_retrieval_shortlist.py."""
    monkeypatch.setattr(lookup, "SURE", 0.0)
