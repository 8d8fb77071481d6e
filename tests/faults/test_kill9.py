"""kill -9 at many points: mid-stream, mid-write (at each step of applying an edit) and with
an approval pending, in `swetui run` and in the full-screen workspace. After each, the
session is reopened: every event committed before the kill is still there, byte for byte,
the log parses, the file is the old or the new content (never torn), and a pending
approval comes back pending, never executed. (A kill mid-command is the sandbox's test.)"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from swetui.agent.session import AgentSession
from swetui.engine.items import ItemKind
from swetui.engine.store import load_session
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.options import LaunchOptions
from tests.e2e.terminal import Terminal
from tests.faults.test_headless_restored_approval import leave_pending
from tests.providers.loopback import LoopbackServer
from tests.providers.wire import Wire
from tests.waiting import WAIT, eventually

REPO = Path(__file__).resolve().parents[2]
OLD = "def greet(name):\n    return f'hello {name}'\n"
NEW = OLD.replace("hello", "howdy")


def env(**extra: str) -> dict[str, str]:
    base = {key: value for key, value in os.environ.items()
            if not key.endswith("_API_KEY") and key != "SWETUI_MODEL"}
    return {**base, "PYTHONPATH": str(REPO), **extra}


def the_log(workspace: Path) -> Path:
    (log,) = (workspace / ".swetui" / "sessions").glob("*.jsonl")
    return log


def continue_and_check(workspace: Path, committed: bytes
                       ) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """Reopen with `swetui run --continue`; the new log must extend what the killed process
    committed, byte for byte, and parse without a warning. The run and the log's events."""
    again = subprocess.run([sys.executable, "-m", "swetui", "run", "--continue", "list files",
                            "--model", "offline"], cwd=workspace, env=env(),
                           capture_output=True, text=True, timeout=WAIT)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr and "▤ list_dir" in again.stdout
    log = the_log(workspace)
    assert log.read_bytes().startswith(committed)  # nothing committed was lost or rewritten
    loaded = load_session(log)
    assert loaded.warnings == []
    return again, loaded.events


# -- mid-stream -------------------------------------------------------------------------------


async def test_kill_mid_stream(workspace: Path) -> None:
    wire = Wire("openai")
    server = LoopbackServer()
    await server.start()
    held = asyncio.Event()
    opening = wire.opening()
    server.script(wire.stream(*opening, wire.text("Half an "), wire.text("answer"), held,
                              wire.text(" never sent"), *wire.closing()))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "swetui", "run", "explain the build", "--model", wire.model,
        cwd=workspace, env=env(**wire.env(server.url)), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    seen = b""
    try:
        assert process.stdout is not None
        while b"Half an answer" not in seen:  # the user is reading the answer...
            chunk = await asyncio.wait_for(process.stdout.read(256), WAIT)
            assert chunk, "swetui ended before streaming"
            seen += chunk
        process.kill()  # ...and swetui is killed mid-stream
        await asyncio.wait_for(process.wait(), WAIT)
    finally:
        held.set()
        await server.stop()
    assert process.returncode == -signal.SIGKILL
    committed = the_log(workspace).read_bytes()
    _, events = continue_and_check(workspace, committed)
    assert [e["text"] for e in events if e["type"] == "turn_started"] == ["explain the build",
                                                                         "list files"]
    reopened = AgentSession.open(LaunchOptions(path=workspace, model="offline", watch=False,
                                               continue_last=True), env={})
    said = [i.content for i in reopened.engine if i.kind is ItemKind.USER_MESSAGE]
    assert said == ["explain the build", "list files"]  # the user's words survive


# -- mid-write: each step of applying an approved edit ------------------------------------------

POINTS = [
    # (where swetui dies, the audit events that lead there, whether the edit landed)
    ("before-the-checkpoint", "open:checkpoints/.", False),
    ("checkpoint-written", "open:.app.py.swetui-", False),
    ("new-content-written-not-renamed", "os.rename:.app.py.swetui-", False),
    ("renamed-result-not-recorded", "os.rename:.app.py.swetui-,open:", True),
]


@pytest.mark.parametrize(("point", "steps", "applied"), POINTS, ids=[p[0] for p in POINTS])
async def test_kill_mid_write(workspace: Path, point: str, steps: str, applied: bool) -> None:
    target = workspace / "src" / "app.py"
    content = NEW if applied else OLD
    assert target.read_text() == OLD
    killed = subprocess.run(
        [sys.executable, "-m", "tests.faults.kill_at", steps, "--", "run",
         'replace "hello" with "howdy" in src/app.py', "--yes", "--model", "offline"],
        cwd=workspace, env=env(), capture_output=True, text=True, timeout=WAIT)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert target.read_text() == content  # the old or the new file, never a torn one
    committed = the_log(workspace).read_bytes()
    assert b'"type":"approval_decided"' in committed  # it died after the approval
    again, events = continue_and_check(workspace, committed)
    results = [e for e in events if e["type"] == "tool_result"
               and e["call_id"] == "offline_1_0"]
    assert len(results) == 1  # the model is told what became of the call it made
    outcome = "applied" if applied else "not applied, the file is unchanged"
    assert f"swetui: swetui stopped while applying an edit to src/app.py: {outcome}" \
        in again.stderr  # and so is the user
    if applied:
        assert results[0]["content"].startswith("Applied: swetui stopped right after")
        assert not results[0]["is_error"]
    else:
        assert results[0]["content"].startswith("Not applied: swetui stopped while writing")
    assert target.read_text() == content  # reopening changed nothing
    assert [p.name for p in target.parent.iterdir()] == ["app.py"]  # no temp file left
    session = AgentSession.open(LaunchOptions(path=workspace, model="offline", watch=False,
                                              continue_last=True), env={})
    undone = session.undo_edit()
    await session.aclose()
    if applied:  # the edit that landed can be undone; one that did not leaves nothing to undo
        assert undone.startswith("Undid the agent's change to src/app.py")
        assert target.read_text() == OLD
    else:
        assert undone.startswith("Nothing to undo"), undone


def test_kill_while_retrieving_before_the_model_is_asked(workspace: Path) -> None:
    # The symbol map is on, built from its cache (as on any later start): its build then
    # parses nothing, so the only open of app.py is the turn's retrieval reading it.
    SymbolMap(workspace, cache_path=workspace / ".swetui" / "symbols" / "map.sqlite").build()
    killed = subprocess.run(
        [sys.executable, "-m", "tests.faults.kill_at", "open:app.py", "--", "run",
         'replace "hello" with "howdy" in src/app.py', "--yes", "--model", "offline"],
        cwd=workspace, env=env(), capture_output=True, text=True, timeout=WAIT)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    committed = the_log(workspace).read_bytes()
    _, events = continue_and_check(workspace, committed)
    assert [e["text"] for e in events if e["type"] == "turn_started"] == [
        'replace "hello" with "howdy" in src/app.py', "list files"]
    assert not [e for e in events if e["type"] == "approval_requested"]
    assert (workspace / "src" / "app.py").read_text() == OLD


@pytest.mark.parametrize("step", ["open:app.py", "swetui.symbols.cache.commit:map.sqlite"],
                         ids=["parsing-a-file", "cache-written-not-renamed"])
def test_kill_while_the_symbol_map_builds(workspace: Path, step: str) -> None:
    # The request names no file: the first open of app.py is the map's build parsing it.
    killed = subprocess.run(
        [sys.executable, "-m", "tests.faults.kill_at", step, "--", "run",
         "where is greet defined?", "--model", "offline"],
        cwd=workspace, env=env(), capture_output=True, text=True, timeout=WAIT)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    symbols = workspace / ".swetui" / "symbols"
    again = subprocess.run([sys.executable, "-m", "swetui", "run", "where is greet defined?",
                            "--model", "offline"], cwd=workspace, env=env(),
                           capture_output=True, text=True, timeout=WAIT)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert "src/app.py:1-2" in again.stdout + again.stderr  # the map found greet's span
    left = {p.name for p in symbols.iterdir()}  # no torn write left over (the vectors
    assert "map.sqlite" in left and left <= {"map.sqlite", "vectors.sqlite"}  # retrieval kept)
    restarted = SymbolMap(workspace, cache_path=symbols / "map.sqlite")
    restarted.build()
    assert "greet" in restarted.index().by_name


# -- an approval pending -------------------------------------------------------------------


async def test_kill_with_an_approval_pending_comes_back_pending(workspace: Path) -> None:
    leave_pending(workspace, 'replace "hello" with "howdy" in src/app.py')
    committed = the_log(workspace).read_bytes()
    reopened = AgentSession.open(LaunchOptions(path=workspace, model="offline", watch=False,
                                               continue_last=True), env={})
    assert [a.call.id for a in reopened.queue.pending()] == ["offline_1_0"]
    assert (workspace / "src" / "app.py").read_text() == OLD  # never executed
    assert the_log(workspace).read_bytes().startswith(committed)
    assert load_session(the_log(workspace)).warnings == []


def test_the_workspace_opens_a_pending_approval_before_its_loop_runs(workspace: Path) -> None:
    """`swetui --continue` opens the session before the app's event loop starts; a pending
    approval then made it end in a traceback ('no running event loop')."""
    leave_pending(workspace, 'replace "hello" with "howdy" in src/app.py')
    session = AgentSession.open(LaunchOptions(path=workspace, model="offline", watch=False,
                                              continue_last=True), env={})

    async def in_the_app() -> list[str]:
        session.start()  # what the workspace screen does once mounted
        pending = [action.call.id for action in session.queue.pending()]
        await session.aclose()
        return pending

    assert asyncio.run(in_the_app()) == ["offline_1_0"]
    assert (workspace / "src" / "app.py").read_text() == OLD


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform != "linux", reason="tmux and /proc")
async def test_full_screen_killed_with_an_approval_pending(tmp_path: Path,
                                                           workspace: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    target = workspace / "src" / "app.py"
    terminal = Terminal("swetui", tmp_path)
    config = {"XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]}
    try:
        terminal.start_swetui(workspace, (120, 36), env=config)
        terminal.wait_for("type a request below")
        terminal.type('replace "hello" with "howdy" in src/app.py')
        terminal.keys("Enter")
        terminal.wait_for("Waiting for approval")
        os.kill(terminal.pane_pid(), signal.SIGKILL)
        assert terminal.wait_closed(), "the killed swetui's terminal closed"
        assert target.read_text() == OLD
        terminal.start_swetui(workspace, (120, 36), "--continue", env=config)
        terminal.wait_for("Waiting for approval")  # pending again, not run, not dropped
        assert target.read_text() == OLD
        terminal.keys("F5")
        terminal.wait_for("n Deny")
        terminal.keys("y")
        terminal.wait_for("Approved edit src/app.py")
        await eventually(lambda: target.read_text() == NEW, "the approved edit was applied")
    finally:
        terminal.stop()
