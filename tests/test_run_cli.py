"""`swetui run` end to end with the offline model, as a user would type it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from tests.waiting import WAIT


def run(*args, cwd, env_extra=None):
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and key != "SWETUI_MODEL"}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "swetui", "run", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)


def test_read_grep_list(workspace):
    read = run("read src/app.py", ".", cwd=workspace)
    assert read.returncode == 0, read.stderr
    assert "≡ read_file" in read.stdout and "return f'hello {name}'" in read.stdout
    assert "done in" in read.stdout and "tokens" in read.stdout
    assert "added to this request's context: read src/app.py" in read.stdout
    grep = run('find "greet"', cwd=workspace)
    assert "⌕ grep" in grep.stdout and "src/app.py:1:" in grep.stdout
    listing = run("list files", cwd=workspace)
    assert "▤ list_dir" in listing.stdout and "src/" in listing.stdout


def test_replace_is_denied_without_yes_and_applied_with_it(workspace):
    target = workspace / "src" / "app.py"
    denied = run('replace "hello" with "howdy" in src/app.py', cwd=workspace)
    assert denied.returncode == 0
    assert "denied" in denied.stdout and "--yes" in denied.stdout
    assert "hello" in target.read_text()
    approved = run('replace "hello" with "howdy" in src/app.py', "--yes", cwd=workspace)
    assert approved.returncode == 0, approved.stderr
    assert "edit applied" in approved.stdout
    assert "howdy" in target.read_text() and "hello" not in target.read_text()


def test_protected_path_is_refused_even_with_yes(workspace):
    (workspace / ".env").write_text("TOKEN=1\n")
    result = run('replace "TOKEN=1" with "TOKEN=2" in .env', "--yes", cwd=workspace)
    assert "protected" in result.stdout
    assert (workspace / ".env").read_text() == "TOKEN=1\n"


def test_command_runs_only_with_yes_and_without_api_keys(workspace):
    secret = "sk-test-should-never-leak"
    denied = run('run "echo hi > made.txt"', cwd=workspace,
                 env_extra={"OPENAI_API_KEY": secret, "SWETUI_MODEL": "offline"})
    assert not (workspace / "made.txt").exists()
    ran = run('run "env > env.txt"', "--yes", cwd=workspace,
              env_extra={"OPENAI_API_KEY": secret, "SWETUI_MODEL": "offline"})
    assert ran.returncode == 0, ran.stderr
    assert secret not in (workspace / "env.txt").read_text()
    swetui_dir = workspace / ".swetui"
    for path in swetui_dir.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    assert "denied" in denied.stdout


def test_session_log_and_event_log_are_written(workspace):
    run("read README.md", cwd=workspace)
    sessions = list((workspace / ".swetui" / "sessions").glob("*.jsonl"))
    logs = list((workspace / ".swetui" / "logs").glob("*.log"))
    assert len(sessions) == 1 and len(logs) == 1
    lines = [json.loads(line) for line in sessions[0].read_text().splitlines()]
    types = [line["type"] for line in lines]
    assert lines[0] | {"origin": "run"} == lines[0] and types[0] == "session_origin"
    assert types[1] == "turn_started" and "model_call" in types and "turn_finished" in types
    events = [json.loads(line)["event"] for line in logs[0].read_text().splitlines()]
    assert "TurnStarted" in events and "ModelCallFinished" in events
    assert "ToolFinished" in events or "ToolCallFinished" in events
    notes = workspace / ".swetui" / "memory" / "session_notes.md"
    assert "read README.md" in notes.read_text()


def test_continue_carries_the_conversation(workspace):
    run("read README.md", cwd=workspace)
    again = run("list files", "--continue", cwd=workspace)
    assert again.returncode == 0
    sessions = list((workspace / ".swetui" / "sessions").glob("*.jsonl"))
    assert len(sessions) == 1
    text = sessions[0].read_text()
    assert text.count('"type":"turn_started"') == 2


def test_bad_model_and_empty_prompt_are_one_line_errors(workspace):
    bad = run("hi", "--model", "nope:x", cwd=workspace)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("swetui: unknown provider 'nope'")
    missing_key = run("hi", "--model", "anthropic:claude-x", cwd=workspace)
    assert missing_key.returncode == 2 and "ANTHROPIC_API_KEY" in missing_key.stderr
    empty = run("  ", cwd=workspace)
    assert empty.returncode == 2 and "empty" in empty.stderr


def test_unreachable_model_fails_with_exit_1_and_no_traceback(workspace, refused_port):
    # A closed port on loopback: connection refused straight away.
    result = run("hi", "--model", "openai:gpt-x", cwd=workspace,
                 env_extra={"OPENAI_BASE_URL": f"http://127.0.0.1:{refused_port}/v1",
                            "OPENAI_API_KEY": "k"})
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and result.stderr.startswith("swetui: ")


def test_output_cut_short_by_the_reader_is_not_a_traceback(workspace):
    process = subprocess.Popen([sys.executable, "-m", "swetui", "run", "read README.md"],
                               cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()  # like `| head -1`
    _, stderr = process.communicate(timeout=WAIT)
    assert b"Traceback" not in stderr and b"BrokenPipeError" not in stderr, stderr
    assert process.returncode == 0


def test_listings_into_a_closed_pipe_are_not_a_traceback(workspace):
    """`swetui sessions | head -1` and `swetui context --json | head -c 10`: the reader has
    gone before swetui writes (its end of the pipe is closed first)."""
    assert run("read README.md", cwd=workspace).returncode == 0
    for command in (["sessions"], ["context", "--json"]):
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            done = subprocess.run([sys.executable, "-m", "swetui", *command], cwd=workspace,
                                  stdout=write_end, stderr=subprocess.PIPE, timeout=WAIT)
        finally:
            os.close(write_end)
        assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr, done.stderr
        assert done.returncode == 0, done.stderr


def test_continue_with_a_hand_damaged_log_is_not_a_traceback(workspace):
    first = run("read README.md", cwd=workspace)
    assert first.returncode == 0, first.stderr
    log = next((workspace / ".swetui" / "sessions").glob("*.jsonl"))
    with log.open("a") as handle:
        handle.write(json.dumps({"seq": 999, "type": "turn_started", "turn": "two"}) + "\n")
        handle.write(json.dumps({"seq": 1000, "type": "approval_requested",
                                 "action": "gone"}) + "\n")
    again = run("list files", "--continue", cwd=workspace)
    assert "Traceback" not in again.stderr
    assert again.returncode == 0, again.stderr
    assert "▤ list_dir" in again.stdout and "skipped" in again.stderr


# A shell that runs the suite in the background (`pytest &`, CI runners, `make -j`) starts it
# with SIGINT ignored, and children inherit that: Python then never installs its ctrl+c
# handler. ctrl+c at a terminal is never ignored, so the child puts the handler back first.
AS_AT_A_TERMINAL = ("import runpy, signal, sys; "
                    "signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "sys.argv[0] = 'swetui'; runpy.run_module('swetui', run_name='__main__')")


def test_ctrl_c_mid_command_exits_130_and_the_model_is_told_it_may_have_run(workspace):
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    process = subprocess.Popen(
        [sys.executable, "-c", AS_AT_A_TERMINAL, "run", 'run "touch started.txt; sleep 30"',
         "--yes"],
        cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    deadline = time.monotonic() + 120  # a bound for a wedged run, not a speed requirement
    while not (workspace / "started.txt").exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    assert "interrupted" in out
    assert process.returncode == 130, (out, err)
    log = next((workspace / ".swetui" / "sessions").glob("*.jsonl"))
    results = [json.loads(line) for line in log.read_text().splitlines()
               if json.loads(line)["type"] == "tool_result"]
    assert len(results) == 1
    # The command had started: the model must not be told that it never ran.
    assert "before it ran" not in results[0]["content"]
    assert "may have" in results[0]["content"]


def test_retrieval_never_puts_secret_files_in_the_context(workspace):
    (workspace / "deploy").mkdir()
    (workspace / "deploy" / ".env").write_text("DB_PASSWORD=hunter2-never-sent\n")
    for prompt in ("show deploy/.env", 'find "hunter2-never-sent"'):
        result = run(prompt, cwd=workspace)
        assert result.returncode == 0, result.stderr
        assert "DB_PASSWORD" not in result.stdout
    for path in (workspace / ".swetui").rglob("*"):
        if path.is_file() and path.suffix in (".jsonl", ".log"):
            for line in path.read_text().splitlines():
                assert "DB_PASSWORD" not in line, path
