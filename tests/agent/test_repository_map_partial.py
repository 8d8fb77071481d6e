"""A request made while the session's symbol map is still being built retrieves from the
files already mapped and says how many of how many it covers; once the build ends, requests
search every file; what the watcher reported during the build is in the map when it ends."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from swetui.agent import AgentSession, turn
from swetui.agent.api import RetrievalDone
from swetui.engine.items import ItemKind
from swetui.options import LaunchOptions
from tests.waiting import WAIT, eventually

from .held_build import LEDGER, hold_build, running
from .scripted import ScriptedProvider, answer

AUDIT = "def reconcile_accounts(ledgers):\n    return [l.settle_balance([]) for l in ledgers]\n"


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The turn's wait for the build ends at once (the test holds the build)."""
    monkeypatch.setattr(turn, "SYMBOL_MAP_WAIT", 0.0)
    return threading.Event()


def open_held(root: Path, go: threading.Event, at: str) -> tuple[AgentSession, threading.Event]:
    """A session whose map build stops at `at` until `go` is set (before reading it)."""
    provider = ScriptedProvider(answer("ok"), answer("ok"), answer("ok"))  # type: ignore[arg-type]
    session = AgentSession.open(LaunchOptions(path=root), env={}, provider=provider)
    session.repo_map.map.publish_every = 1
    return session, hold_build(session, at, go)


def ledger_and_audit(root: Path) -> Path:
    (root / "src" / "ledger.py").write_text(LEDGER)
    (root / "examples").mkdir()
    (root / "examples" / "audit.py").write_text(AUDIT)  # read after the source
    return root


async def test_a_request_during_the_build_uses_the_partial_map_and_says_so(workspace, held):
    session, reached = open_held(ledger_and_audit(workspace), held, at="examples/audit.py")
    seen: list[RetrievalDone] = []
    session.bus.subscribe(seen.append, RetrievalDone)
    async with running(session, held):
        assert await asyncio.to_thread(reached.wait, WAIT)
        during = await session.send("where is settle_balance?")
        assert during.error is None
        spans = [i for i in session.engine if i.kind is ItemKind.SPAN]
        assert [span.source.path for span in spans] == ["src/ledger.py"]
        mapped, total = session.repo_map.map.progress or (0, 0)
        assert 0 < mapped == total - 1  # all but the held file
        assert f"symbol map is still being built: it covers {mapped} of {total} files" \
            in seen[-1].line()
        held.set()
        await eventually(session.repo_map.map.ready.is_set, "the build ended")
        after = await session.send("where is reconcile_accounts?")
        assert after.error is None
        assert "examples/audit.py" in {i.source.path for i in session.engine
                                       if i.kind is ItemKind.SPAN}
        assert "still being built" not in seen[-1].line()


async def test_a_change_the_watcher_reports_during_the_build_is_in_the_map_after(workspace,
                                                                              held):
    session, reached = open_held(ledger_and_audit(workspace), held, at="examples/audit.py")
    async with running(session, held):
        assert await asyncio.to_thread(reached.wait, WAIT)
        assert "settle_balance" in session.repo_map.map.index().by_name  # mapped already
        (workspace / "src" / "ledger.py").write_text(LEDGER.replace("settle_balance",
                                                                    "close_ledger"))
        await session.repo_map.changed(["src/ledger.py"])  # what the watcher reports
        (workspace / "src" / "new.py").write_text("def open_ledger():\n    pass\n")
        await session.repo_map.changed(["src/new.py"])
        held.set()
        await eventually(lambda: "close_ledger" in session.repo_map.map.index().by_name,
                         "the change made during the build reached the map")
        index = session.repo_map.map.index()
        assert "settle_balance" not in index.by_name and "open_ledger" in index.by_name
        assert index.partial is None
