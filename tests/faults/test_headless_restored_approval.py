"""A headless run that reopens a session with an approval pending from a killed process
reports it, decides it (denied unless --yes; protected ones always), and finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and key != "SWETUI_MODEL"}
    env["PYTHONPATH"] = str(REPO)
    return env


def leave_pending(workspace: Path, prompt: str) -> str:
    """Kill a real session (SIGKILL) while PROMPT's action waits for approval; its id."""
    died = subprocess.run([sys.executable, "-m", "tests.faults.leave_pending", str(workspace),
                           prompt], capture_output=True, text=True, env=_env(), cwd=REPO,
                          timeout=120)
    assert died.returncode == -signal.SIGKILL, died.stderr
    (log,) = (workspace / ".swetui" / "sessions").glob("*.jsonl")
    return log.stem


def run(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "swetui", "run", *args], capture_output=True,
                          text=True, cwd=workspace, env=_env(), timeout=120)


def events(workspace: Path) -> list[dict[str, Any]]:
    (log,) = (workspace / ".swetui" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


def outcome(workspace: Path, call_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The recorded decision on the restored action and the result the model was sent."""
    log = events(workspace)
    action_id = next(e["action"]["id"] for e in log if e["type"] == "approval_requested"
                     and e["action"]["call"]["id"] == call_id)
    decided = [e for e in log if e["type"] == "approval_decided"
               and e["action_id"] == action_id]
    results = [e for e in log if e["type"] == "tool_result" and e["call_id"] == call_id]
    assert len(decided) == 1 and len(results) == 1, (decided, results)
    return decided[0], results[0]


def assert_finished(result: subprocess.CompletedProcess[str], workspace: Path) -> None:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "▤ list_dir" in result.stdout and "done in" in result.stdout
    log = events(workspace)
    assert [e["turn"] for e in log if e["type"] == "turn_finished"] == [2]


EDIT = 'replace "hello" with "howdy" in src/app.py'


@pytest.mark.parametrize("how", ["--continue", "--resume"])
def test_restored_edit_is_reported_and_denied_without_yes(workspace: Path, how: str) -> None:
    session_id = leave_pending(workspace, EDIT)
    target = workspace / "src" / "app.py"
    before = target.read_text()
    args = ["--continue"] if how == "--continue" else ["--resume", session_id]
    result = run(workspace, "list files", *args)
    assert_finished(result, workspace)
    assert "pending approval from the last run" in result.stderr
    assert "edit 'src/app.py'" in result.stderr
    assert "denied" in result.stderr and "--yes" in result.stderr
    assert target.read_text() == before
    decided, sent = outcome(workspace, "offline_1_0")
    assert decided["decision"]["approved"] is False
    assert "--yes" in decided["decision"]["reason"]
    assert sent["is_error"] and "headless run without --yes" in sent["content"]
    # The denial reached the model before the new request: the next turn starts after it.
    log = events(workspace)
    assert log.index(sent) < next(i for i, e in enumerate(log)
                                  if e["type"] == "turn_started" and e["turn"] == 2)


def test_restored_edit_is_applied_with_yes(workspace: Path) -> None:
    leave_pending(workspace, EDIT)
    result = run(workspace, "list files", "--continue", "--yes")
    assert_finished(result, workspace)
    assert "edit 'src/app.py'" in result.stderr and "approved" in result.stderr
    assert "howdy" in (workspace / "src" / "app.py").read_text()
    decided, sent = outcome(workspace, "offline_1_0")
    assert decided["decision"]["approved"] is True and not sent["is_error"]


def test_restored_protected_edit_is_denied_even_with_yes(workspace: Path) -> None:
    (workspace / ".env").write_text("TOKEN=1\n")
    leave_pending(workspace, 'replace "TOKEN=1" with "TOKEN=2" in .env')
    result = run(workspace, "list files", "--continue", "--yes")
    assert_finished(result, workspace)
    assert "edit '.env'" in result.stderr and "protected" in result.stderr
    assert (workspace / ".env").read_text() == "TOKEN=1\n"
    decided, sent = outcome(workspace, "offline_1_0")
    assert decided["decision"]["approved"] is False and "protected" in sent["content"]


def test_restored_command_is_named_and_denied_without_yes(workspace: Path) -> None:
    leave_pending(workspace, 'run "touch made.txt"')
    result = run(workspace, "list files", "--continue")
    assert_finished(result, workspace)
    assert "command 'touch made.txt'" in result.stderr and "denied" in result.stderr
    assert not (workspace / "made.txt").exists()
    decided, _ = outcome(workspace, "offline_1_0")
    assert decided["decision"]["approved"] is False


def test_restored_dangerous_command_is_denied_even_with_yes(workspace: Path) -> None:
    victim = workspace / "keep"
    victim.mkdir()
    (victim / "data.txt").write_text("precious\n")
    leave_pending(workspace, 'run "rm -rf keep"')
    result = run(workspace, "list files", "--continue", "--yes")
    assert_finished(result, workspace)
    assert "command 'rm -rf keep'" in result.stderr and "protected" in result.stderr
    assert (victim / "data.txt").read_text() == "precious\n"


def test_a_deny_rule_decides_a_restored_edit_before_yes_can_approve_it(workspace: Path) -> None:
    from swetui.agent.rules import RuleBook
    from swetui.config import ApprovalRule

    leave_pending(workspace, EDIT)
    RuleBook(workspace).workspace.add(ApprovalRule(action="deny", kind="path",
                                                   pattern="src/**"))
    result = run(workspace, "list files", "--continue", "--yes")
    assert_finished(result, workspace)
    assert "edit 'src/app.py'" in result.stderr and "approved" not in result.stderr
    assert "hello" in (workspace / "src" / "app.py").read_text()
    decided, sent = outcome(workspace, "offline_1_0")
    assert decided["by"] == "rule" and decided["decision"]["approved"] is False
    assert sent["is_error"] and "not run" in sent["content"]


def test_a_restored_edit_of_an_escape_named_file_prints_no_escape(workspace: Path) -> None:
    name = "\x1b]0;pwned\x07notes.txt"
    (workspace / name).write_text("ordinary text\n")
    leave_pending(workspace, f'replace "ordinary" with "plain" in "{name}"')
    result = run(workspace, "list files", "--continue", "--yes")
    assert_finished(result, workspace)
    assert "approved (--yes)" in result.stderr
    assert "\x1b" not in result.stderr + result.stdout
    assert (workspace / name).read_text() == "plain text\n"
