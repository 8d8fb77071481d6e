"""`swetui run` never hangs on a FIFO, and ctrl+c always ends it: the first interrupts the
turn, a second exits at once with 130 even while a worker thread is stuck."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests import headless
from tests.providers.loopback import LoopbackServer


@pytest.fixture
async def model() -> AsyncIterator[LoopbackServer]:
    server = LoopbackServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def fifo_workspace(workspace: Path) -> Path:
    (workspace / "a.txt").write_text("hello x\n")
    os.mkfifo(workspace / "p")
    return workspace


@pytest.mark.parametrize("prompt", ['find "x"', "read ./p", 'find "x" in p'])
async def test_a_fifo_is_skipped_and_the_turn_finishes(fifo_workspace: Path, prompt: str):
    code, out, err = await headless.run(prompt, fifo_workspace, headless.environment(),
                                        timeout=120)
    text = out.decode()
    assert code == 0, (text, err)
    assert "p (a FIFO)" in text or "p is a FIFO, not a regular file; not read" in text
    assert "done in" in text


async def test_a_fifo_named_in_the_request_is_not_read_by_retrieval(fifo_workspace: Path):
    os.mkfifo(fifo_workspace / "notes.md")
    code, out, _ = await headless.run("what does notes.md say", fifo_workspace,
                                      headless.environment())
    assert code == 0
    assert "notes.md is a FIFO, not a regular file; not read" in out.decode()


async def test_a_runaway_pattern_from_the_model_is_stopped_not_a_frozen_swetui(
        workspace: Path, model: LoopbackServer):
    """`(a|aa)+$` backtracks without end; in Python's `re` it also holds the GIL, so the
    whole process froze and ignored ctrl+c. Now the match gives up and the turn goes on.
    The glob takes `re` 12 s per 40-letter name; it is fast without backtracking."""
    (workspace / "a.txt").write_text("a" * 64 + "!\n")
    (workspace / ("a" * 40)).write_text("x\n")
    model.script(headless.tool_call("grep", {"pattern": "(a|aa)+$"}),
                 headless.tool_call("glob", {"pattern": "*a*a*a*a*a*a*a*a*a*a*b"}, "call_2"),
                 headless.answer("both patterns were too slow"))
    code, out, err = await headless.run("find it", workspace, headless.environment(model))
    text = out.decode()
    assert code == 0, (text, err)
    assert "✗ grep: pattern too slow, stopped" in text
    assert "0 files match *a*a*a" in text  # 12 s per name in `re`: now at once
    assert "both patterns were too slow" in text


def _interruptible(body: str) -> str:
    """A program running `body` (an async function `main`) as `swetui run` runs a turn."""
    return textwrap.dedent("""
        import asyncio, os, sys
        from swetui.interrupts import run_interruptibly
        read_end, _write_end = os.pipe()

        def stuck() -> bytes:
            return os.read(read_end, 1)  # a worker thread that never returns
    """) + textwrap.dedent(body) + textwrap.dedent("""
        sys.exit(run_interruptibly(main(), notice="interrupting"))
    """)


def _started(code: str, ready: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    while not ready.exists():
        assert process.poll() is None, process.communicate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(0.05)
    return process


def test_the_first_ctrl_c_ends_a_turn_whose_worker_thread_is_stuck(tmp_path: Path):
    """The turn closes on the first ctrl+c and swetui exits, without waiting for ever on
    the thread (`asyncio.run` would join it at exit and hang)."""
    ready = tmp_path / "ready"
    process = _started(_interruptible(f"""
        async def main() -> int:
            try:
                open({str(ready)!r}, "w").close()
                await asyncio.to_thread(stuck)
            except asyncio.CancelledError:
                print("turn closed", flush=True)
            return 130
    """), ready)
    try:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert b"turn closed" in out and b"Traceback" not in err


def test_a_second_ctrl_c_ends_a_turn_that_keeps_waiting_on_a_stuck_thread(tmp_path: Path):
    ready = tmp_path / "ready"
    process = _started(_interruptible(f"""
        async def main() -> int:
            open({str(ready)!r}, "w").close()
            while True:
                try:
                    await asyncio.to_thread(stuck)
                except asyncio.CancelledError:
                    print("still waiting", flush=True)
    """), ready)
    try:
        assert process.stdout is not None and process.stderr is not None
        process.send_signal(signal.SIGINT)
        assert process.stdout.readline() == b"still waiting\n"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert b"interrupting" in err and b"Traceback" not in err


def test_a_second_ctrl_c_ends_swetui_while_its_main_thread_is_blocked(tmp_path: Path):
    """The first ctrl+c cannot reach a main thread stuck in a system call; the second
    one ends the process anyway."""
    ready = tmp_path / "ready"
    code = textwrap.dedent(f"""
        import os
        from swetui.interrupts import CtrlC
        read_end, _write_end = os.pipe()
        with CtrlC(lambda: None, notice="interrupting").installed():
            open({str(ready)!r}, "w").close()
            os.read(read_end, 1)  # blocks for ever: nobody writes
        print("not reached")
    """)
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        while not ready.exists():
            assert process.poll() is None, process.communicate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0.05)
        process.send_signal(signal.SIGINT)
        assert process.stderr is not None
        notice = process.stderr.readline() + process.stderr.readline()
        process.send_signal(signal.SIGINT)  # signals sent together would merge into one
        out, err = process.communicate(timeout=60)
        err = notice + err
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert b"not reached" not in out and b"interrupting" in err
