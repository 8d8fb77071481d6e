"""The bash tool: scrubbed environment, timeouts that kill the whole group, capped output."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from swetui.agent.tools.shell import run_command, scrubbed_environment
from tests.agent.conftest import tool_call


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
    marker = tmp_path / "survived"
    started = time.monotonic()
    result = await run_command(f"(sleep 3; touch {marker}) & sleep 30", str(tmp_path), 0.5)
    assert time.monotonic() - started < 6
    assert result.is_error and result.data["timed_out"]
    assert "timed out after 0.5 s" in result.content and "killed" in result.summary
    await asyncio.sleep(3.5)
    assert not marker.exists(), "a child of the timed-out command kept running"


async def test_timeout_argument_is_used(make_toolbox):
    result = await make_toolbox("auto").run(tool_call("bash", command="sleep 10", timeout=0.3))
    assert result.is_error and "timed out after 0.3 s" in result.content


async def test_cancel_kills_the_process_group(tmp_path: Path):
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(run_command(f"echo $$ > {pid_file}; sleep 30", str(tmp_path), 60))
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int(pid_file.read_text())
    await asyncio.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_output_is_capped_keeping_start_and_end(tmp_path: Path):
    result = await run_command("seq 1 100000", str(tmp_path), 20, output_cap=3000)
    assert result.content.startswith("$ seq 1 100000\n1\n2\n")
    assert "100000" in result.content
    assert "bytes of output cut" in result.content
    assert len(result.content) < 3600


async def test_background_child_holding_the_pipe_does_not_hang(tmp_path: Path):
    started = time.monotonic()
    result = await run_command("sleep 30 & echo done", str(tmp_path), 20)
    assert time.monotonic() - started < 8
    assert "done" in result.content
