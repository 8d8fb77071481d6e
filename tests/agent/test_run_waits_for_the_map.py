"""`swetui run` makes one headless turn: its request retrieves from the whole symbol map,
waiting for the first build (and saying so) instead of taking the part built in the few
seconds the screen waits. A run that took the partial map attached blocks from the wrong
files, and the build it left was lost when the process ended."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pydantic import BaseModel

from swetui.agent import AgentSession, turn
from swetui.engine.events import EngineNotice
from swetui.engine.items import ItemKind
from swetui.options import LaunchOptions

from .held_build import LEDGER, hold_build, running
from .scripted import ScriptedProvider, answer

REPORT = "def monthly_report(ledgers):\n    return [l.name for l in ledgers]\n"


@pytest.fixture
def no_screen_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen's wait for the build is none here: only a run's own wait can help."""
    monkeypatch.setattr(turn, "SYMBOL_MAP_WAIT", 0.0)


def held_session(root: Path, origin: str | None) -> tuple[AgentSession, threading.Event]:
    """A session whose map build stops at the file defining settle_balance until `go` is
    set; set when the session says the request waits for the map."""
    provider = ScriptedProvider(answer("ok"))
    session = AgentSession.open(LaunchOptions(path=root, origin=origin), env={},
                                provider=provider)  # type: ignore[arg-type]
    go = threading.Event()
    hold_build(session, "src/ledger.py", go)

    def release(event: BaseModel) -> None:
        if isinstance(event, EngineNotice) and "waits for the symbol map" in event.message:
            go.set()

    session.bus.subscribe(release, EngineNotice)
    return session, go


async def test_a_runs_request_waits_for_the_whole_map_and_says_so(workspace, no_screen_wait):
    (workspace / "src" / "ledger.py").write_text(LEDGER)
    (workspace / "src" / "report.py").write_text(REPORT)
    notices: list[EngineNotice] = []
    session, go = held_session(workspace, origin="run")
    session.bus.subscribe(notices.append, EngineNotice)
    async with running(session, go):
        finished = await session.send("How is an overdrawn account noticed?")
        assert finished.error is None
        spans = [i for i in session.engine if i.kind is ItemKind.SPAN]
        assert [span.source.path for span in spans] == ["src/ledger.py"]
        assert "def settle_balance" in spans[0].content
        waits = [n.message for n in notices if "waits for the symbol map" in n.message]
        assert len(waits) == 1 and "(up to 120 s)" in waits[0]


async def test_on_screen_the_request_does_not_wait_for_the_map(workspace, no_screen_wait):
    (workspace / "src" / "ledger.py").write_text(LEDGER)
    notices: list[EngineNotice] = []
    session, go = held_session(workspace, origin="screen")
    session.bus.subscribe(notices.append, EngineNotice)
    async with running(session, go):
        finished = await session.send("How is an overdrawn account noticed?")
        assert finished.error is None
        assert not [i for i in session.engine if i.kind is ItemKind.SPAN]
        assert not [n for n in notices if "symbol map" in n.message]
