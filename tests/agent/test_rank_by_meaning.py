"""The `rank_by_meaning` setting: on (the default), a request that describes behaviour asks
the embedding model to rank what it found; off, the model is never loaded and retrieval ranks
by words, saying nothing about a model the user switched off."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.agent import AgentSession, session
from swetui.agent.api import RetrievalDone
from swetui.engine.items import ItemKind
from swetui.engine.symbols.semantic import ModelLoader
from swetui.options import LaunchOptions
from tests.trusted import trust_workspace

from .scripted import ScriptedProvider, answer

SOURCE = '''\
def retry_delay(attempt):
    """How long to wait before the next attempt: doubles each time, at most a minute."""
    return min(60, 2 ** attempt)


def open_socket(host, port):
    """Connect a TCP socket to host and port."""
    raise NotImplementedError
'''
REQUEST = "How long do we wait before the next attempt?"


@pytest.fixture
def unloadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelLoader:
    """The session's model: one whose files are missing, so asking for it is visible (the
    request says once that it ranked by words) and not asking leaves it never started."""
    loader = ModelLoader(tmp_path / "no-model")
    monkeypatch.setattr(session, "MODEL", loader)
    return loader


async def _notes(root: Path) -> tuple[list[str], list[str]]:
    """The retrieval notes of one described request, and the spans it attached."""
    provider = ScriptedProvider(answer("ok"))  # type: ignore[arg-type]
    agent = AgentSession.open(LaunchOptions(path=root), env={}, provider=provider)
    seen: list[RetrievalDone] = []
    agent.bus.subscribe(seen.append, RetrievalDone)
    agent.start()
    try:
        finished = await agent.send(REQUEST)
        assert finished.error is None
    finally:
        await agent.aclose()
    spans = [item.content for item in agent.engine if item.kind is ItemKind.SPAN]
    return [note for done in seen for note in done.notes], spans


async def test_by_default_a_described_request_asks_the_model(
        workspace: Path, unloadable: ModelLoader) -> None:
    (workspace / "src" / "net.py").write_text(SOURCE)
    notes, spans = await _notes(workspace)
    assert [note for note in notes if "ranked by words only" in note]
    assert any("def retry_delay" in span for span in spans)


async def test_switched_off_the_model_is_never_loaded_and_words_still_find_it(
        workspace: Path, unloadable: ModelLoader) -> None:
    (workspace / "src" / "net.py").write_text(SOURCE)
    (workspace / ".swetui").mkdir()
    (workspace / ".swetui" / "config.toml").write_text("rank_by_meaning = false\n")
    trust_workspace(workspace)
    notes, spans = await _notes(workspace)
    assert not [note for note in notes if "words only" in note]
    assert unloadable.error is None and unloadable.encoder is None
    assert not unloadable._started
    assert any("def retry_delay" in span for span in spans)
