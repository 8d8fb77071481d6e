"""swetui keeps API keys out of its own environment: a command it runs cannot find them in
`/proc/<swetui>/environ`. It re-executes itself at start with the keys on a pipe; the pid,
exit codes and ctrl+c behave as before."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import PLANTED
from tests.waiting import WAIT

OFFLINE_AUTO = ("--yes", "--mode", "auto", "--model", "offline")


@pytest.fixture
def unconfined(tmp_path: Path) -> Path:
    """A config home whose config turns the sandbox off: commands run unconfined, the worst
    case the restart is for (a confined command cannot read swetui's /proc at all)."""
    home = tmp_path / "config"
    (home / "swetui").mkdir(parents=True)
    (home / "swetui" / "config.toml").write_text('sandbox = "off"\n')
    return home


def environment(config_home: Path | None = None, **extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if not name.endswith(("_API_KEY", "_TOKEN")) and name != "SWETUI_MODEL"}
    env.update(PLANTED)
    if config_home is not None:
        env["XDG_CONFIG_HOME"] = str(config_home)
    env.update(extra)
    return env


def swetui(*args: str, cwd: Path, env: dict[str, str] | None = None,
           python: tuple[str, ...] = ("-m", "swetui")) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *python, *args], capture_output=True, text=True,
                          cwd=cwd, env=env or environment(), timeout=WAIT)


ANCESTORS = ('run "p=$PPID; while [ $p -gt 1 ]; do echo; echo pid=$p; cat /proc/$p/environ; '
             'p=$(grep PPid: /proc/$p/status | cut -f2); done"')
"""Print the environment of every process above the command: the attack the restart is for."""


def tool_output(workspace: Path) -> str:
    """What the last command printed, from the session log (stdout shows a summary)."""
    [log] = (workspace / ".swetui" / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [event for event in events if event["type"] == "tool_result"][-1]["content"]


def environments(output: str) -> dict[int, dict[str, str]]:
    """pid → the `NAME=value` pairs printed for it by `ANCESTORS`."""
    found: dict[int, dict[str, str]] = {}
    for block in output.split("\npid=")[1:]:
        pid, _, environ = block.partition("\n")
        pairs = (entry.partition("=") for entry in environ.replace("\x00", "\n").splitlines())
        found[int(pid)] = {name: value for name, sep, value in pairs if sep}
    return found


def assert_no_key(text: str) -> None:
    for name, value in PLANTED.items():
        assert value not in text, f"{name} leaked"


def test_an_unconfined_command_finds_no_key_in_swetuis_environment(workspace, unconfined):
    process = subprocess.Popen([sys.executable, "-m", "swetui", "run", ANCESTORS, *OFFLINE_AUTO],
                               cwd=workspace, env=environment(unconfined), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=WAIT)
    assert process.returncode == 0, err
    assert_no_key(out + err)
    # The re-exec kept the pid: the process the test started is the command's ancestor.
    shown = environments(tool_output(workspace))
    assert process.pid in shown, shown.keys()
    swetuis = shown[process.pid]
    assert "PATH" in swetuis  # the command did read swetui's environment
    assert not {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_SERVICE_TOKEN"} & swetuis.keys()
    for environ in shown.values():  # nor any other ancestor's (the test's own has none)
        assert not set(PLANTED) & environ.keys()


def test_exit_codes_are_unchanged_by_the_restart(workspace):
    bad = swetui("run", "hi", "--model", "nope:x", cwd=workspace)
    assert bad.returncode == 2 and bad.stderr.startswith("swetui: unknown provider")
    empty = swetui("run", "  ", cwd=workspace)
    assert empty.returncode == 2 and "empty" in empty.stderr


def test_the_provider_still_gets_its_key_after_the_restart(workspace, refused_port):
    # A refusing loopback port: the request fails, but only once the key was found.
    env = environment(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{refused_port}")
    found = swetui("run", "hi", "--model", "anthropic:claude-x", cwd=workspace, env=env)
    assert found.returncode == 1, found.stderr
    assert "needs ANTHROPIC_API_KEY" not in found.stderr and "Traceback" not in found.stderr
    del env["ANTHROPIC_API_KEY"]
    missing = swetui("run", "hi", "--model", "anthropic:claude-x", cwd=workspace, env=env)
    assert missing.returncode == 2 and "needs ANTHROPIC_API_KEY" in missing.stderr


def test_ctrl_c_after_the_restart_still_exits_130(workspace):
    process = subprocess.Popen(
        [sys.executable, "-m", "swetui", "run", 'run "touch started.txt; sleep 30"',
         *OFFLINE_AUTO], cwd=workspace, env=environment(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + WAIT
    while not (workspace / "started.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=WAIT)
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err


def test_a_failed_restart_carries_on_and_says_so(workspace):
    # The interpreter cannot be found again (moved, deleted during an upgrade).
    code = ("import sys; sys.executable = '/nonexistent/python'; "
            "from swetui.cli import main; sys.exit(main())")
    result = swetui("run", 'run "echo ran"', *OFFLINE_AUTO, cwd=workspace,
                    python=("-c", code))
    assert result.returncode == 0, result.stderr
    assert "ran" in result.stdout
    assert "a command you approve can read them" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_hand_over_is_a_warning_not_a_crash(workspace):
    env = environment(SWETUI_SECRETS_FD="not-a-number")
    for name in PLANTED:
        env.pop(name)
    result = swetui("run", "list files", "--model", "offline", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert "SWETUI_SECRETS_FD" in result.stderr and "Traceback" not in result.stderr
    closed = swetui("run", "list files", "--model", "offline", cwd=workspace,
                    env={**env, "SWETUI_SECRETS_FD": "987"})
    assert closed.returncode == 0 and "Traceback" not in closed.stderr


def test_configured_secret_names_are_kept_out_and_redacted(workspace, tmp_path):
    config_home = tmp_path / "config"
    (config_home / "swetui").mkdir(parents=True)
    (config_home / "swetui" / "config.toml").write_text(
        'secret_env = ["DATABASE_URL"]\nsandbox = "off"\n')
    url = "postgres://app:PLANTED-db-pass-777@db.internal/app"
    (workspace / "dsn.txt").write_text(f"dsn = {url}\n")
    env = environment(config_home, DATABASE_URL=url)
    result = swetui("run", 'run "cat /proc/$PPID/environ; echo; cat dsn.txt"', *OFFLINE_AUTO,
                    cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert url not in result.stdout and "PLANTED-db-pass" not in result.stdout
    assert "DATABASE_URL=" not in result.stdout  # not in swetui's environment at all
    assert "dsn = [redacted: DATABASE_URL]" in result.stdout
    for path in (workspace / ".swetui").rglob("*"):
        if path.is_file():
            assert "PLANTED-db-pass" not in path.read_text(errors="replace"), path


def test_version_and_help_answer_with_keys_set(tmp_path):
    version = swetui("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("swetui ")
    helped = swetui("run", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "usage: swetui run" in helped.stdout
