"""The bash tool: scrubbed environment, timeouts that kill the whole group, capped output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest

from swetui.agent.tools.shell import run_command, scrubbed_environment
from tests.agent.conftest import tool_call
from tests.waiting import WAIT, eventually, wait_dead


async def test_child_does_not_see_api_keys(make_toolbox, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-should-not-leak")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://example")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    monkeypatch.setenv("SWETUI_HARMLESS", "visible")
    result = await make_toolbox("auto").run(tool_call("bash", command="env"))
    assert not result.is_error
    for leaked in ("sk-test-should-not-leak", "ghp_secret", "hunter2", "OPENAI_API_KEY",
                   "ANTHROPIC_BASE_URL"):
        assert leaked not in result.content
    assert "SWETUI_HARMLESS=visible" in result.content


def test_scrubbed_environment_rules():
    env = scrubbed_environment({"PATH": "/bin", "MY_SECRET_THING": "x", "aws_access_key_id": "y",
                                "OPENAI_ORG": "o", "HOME": "/h", "GCP_CREDENTIALS": "c"})
    assert set(env) >= {"PATH", "HOME"}
    assert not {"MY_SECRET_THING", "aws_access_key_id", "OPENAI_ORG",
                "GCP_CREDENTIALS"} & set(env)
    assert env["GIT_TERMINAL_PROMPT"] == "0"


async def test_runs_in_workspace_root_and_reports_exit_code(make_toolbox, ws_root: Path):
    ok = await make_toolbox("auto").run(tool_call("bash", command="pwd; ls src"))
    assert str(ws_root.resolve()) in ok.content and "app.py" in ok.content
    assert "[exit code 0]" in ok.content and ok.summary.startswith("exit 0")
    failed = await make_toolbox("auto").run(tool_call("bash", command="echo oops >&2; exit 3"))
    assert failed.is_error and "oops" in failed.content and "[exit code 3]" in failed.content
    assert failed.data["exit_code"] == 3


async def test_timeout_kills_the_command_and_its_children(tmp_path: Path):
    # The child records its pid as soon as it starts; a machine so busy that it had not
    # started when the timeout fired tries again with a longer one.
    for timeout in (0.5, 2, 8, 32):
        marker, child = tmp_path / f"survived-{timeout}", tmp_path / f"child-{timeout}"
        result = await run_command(f"(sleep 30; touch {marker}) & echo $! > {child}; sleep 30",
                                   str(tmp_path), timeout)
        assert result.is_error and result.data["timed_out"]
        assert f"timed out after {timeout:g} s" in result.content
        assert "killed" in result.summary
        if child.exists() and child.read_text().strip():
            break
    else:
        raise AssertionError("the command never started its child")
    await wait_dead(int(child.read_text()))
    assert not marker.exists(), "a child of the timed-out command kept running"


async def test_timeout_argument_is_used(make_toolbox):
    result = await make_toolbox("auto").run(tool_call("bash", command="sleep 10", timeout=0.3))
    assert result.is_error and "timed out after 0.3 s" in result.content


async def test_cancel_kills_the_process_group(tmp_path: Path):
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(run_command(f"echo $$ > {pid_file}; sleep 30", str(tmp_path), 60))
    await eventually(lambda: task.done() or (pid_file.exists() and pid_file.read_text().strip()),
                     "the command started")
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_dead(int(pid_file.read_text()))


async def test_output_is_capped_keeping_start_and_end(tmp_path: Path):
    result = await run_command("seq 1 100000", str(tmp_path), 20, output_cap=3000)
    assert result.content.startswith("$ seq 1 100000\n1\n2\n")
    assert "100000" in result.content
    assert "bytes of output cut" in result.content
    assert len(result.content) < 3600


async def test_background_child_holding_the_output_does_not_hang(tmp_path: Path):
    # The child inherits the command's output and blocks until the test lets it go: the
    # tool must answer when the command itself ends, not when its children do.
    fifo, child = tmp_path / "never-written", tmp_path / "child"
    os.mkfifo(fifo)
    try:
        result = await asyncio.wait_for(
            run_command(f"(read x < {fifo}) & echo $! > {child}; echo done", str(tmp_path), 20),
            WAIT)
        assert "done" in result.content and not result.data["timed_out"]
    finally:
        if child.exists() and child.read_text().strip():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(child.read_text()), signal.SIGKILL)
