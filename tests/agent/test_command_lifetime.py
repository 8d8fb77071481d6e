"""Commands die with swetui, however swetui dies (SIGKILL included), confined or not; and a
command that was running when it died is reported on resume, to the user and to the model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from swetui.agent.sandbox import probe
from tests.agent.test_sandbox import processes_with
from tests.waiting import WAIT


def start_run(workspace: Path, prompt: str, *args: str) -> subprocess.Popen[str]:
    """`swetui run` as a terminal starts it: with SIGHUP's default action even when the
    suite was started with it ignored (`nohup`, some CI and agent shells): ignored, it is
    inherited, and swetui rightly outlived the hangup the test sends (120 s, then failed)."""
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and key != "SWETUI_MODEL"}
    return subprocess.Popen([sys.executable, "-m", "swetui", "run", prompt, *args],
                            cwd=workspace, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_hangup)


def _default_hangup() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def wait_for(condition, what: str, swetui: subprocess.Popen[str] | None = None) -> None:
    """Wait on a condition (WAIT bounds a wedged run, not a slow one); when `swetui` ended
    before the condition held, fail at once with what it said."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        if condition():
            return
        if swetui is not None and swetui.poll() is not None:
            _, err = swetui.communicate()
            raise AssertionError(f"swetui exited ({swetui.returncode}) before {what}: {err}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def kill_swetui_mid_command(workspace: Path, command: str, marker: str, sig: int,
                            started: Callable[[], bool]) -> None:
    """Run `command` in `swetui run`, signal swetui once `started`, and wait until no process
    named `marker` is left (whatever happens, none is left behind by the test)."""
    swetui = start_run(workspace, f'run "{command}"', "--yes", "--mode", "auto")
    try:
        wait_for(started, "the command to start", swetui)
        os.kill(swetui.pid, sig)
        swetui.wait(timeout=WAIT)
        wait_for(lambda: not processes_with(marker), "the command to die with swetui")
    finally:
        if swetui.poll() is None:
            swetui.kill()
        for pid in processes_with(marker):
            os.kill(pid, signal.SIGKILL)


def session_events(workspace: Path) -> list[dict]:
    [log] = (workspace / ".swetui" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.fixture(params=["sandbox", "unconfined"])
def confinement(request: pytest.FixtureRequest, isolated_config: Path) -> str:
    if request.param == "sandbox" and not probe().available:
        pytest.skip(f"no kernel sandbox here: {probe().detail}")
    if request.param == "unconfined":
        config = isolated_config / "swetui"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text('sandbox = "off"\n')
    return str(request.param)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_a_running_command_dies_with_swetui_and_is_reported_on_resume(
        workspace: Path, confinement: str, sig: signal.Signals) -> None:
    marker = f"swetui-life-{os.getpid()}-{workspace.parent.name}-{sig.name}"
    command = f"echo started > started.txt; (exec -a {marker} sleep 300) & exec -a {marker} " \
              "sleep 300"
    kill_swetui_mid_command(workspace, command, marker, sig,
                            lambda: len(processes_with(marker)) == 2)
    assert (workspace / "started.txt").exists()

    resumed = subprocess.run([sys.executable, "-m", "swetui", "run", "--continue", "list files"],
                             cwd=workspace, capture_output=True, text=True, timeout=WAIT)
    assert resumed.returncode == 0, resumed.stderr
    assert "a command was running when swetui stopped" in resumed.stderr
    assert marker in resumed.stderr
    results = [event for event in session_events(workspace) if event["type"] == "tool_result"
               and event["name"] == "bash"]
    assert len(results) == 1 and "killed" in results[0]["summary"]
    assert "may have partly run" in results[0]["content"]


def test_headless_never_runs_a_command_outside_the_sandbox(workspace: Path) -> None:
    if not probe().available:
        pytest.skip(f"no kernel sandbox here: {probe().detail}")
    (workspace / ".git").mkdir()
    done = subprocess.run([sys.executable, "-m", "swetui", "run",
                           'run "cd .git && touch planted"', "--yes", "--mode", "auto"],
                          cwd=workspace, capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stderr
    assert not (workspace / ".git" / "planted").exists()
    assert "Read-only file system" in done.stdout
    assert "declined to run it outside the sandbox" in " ".join(
        event.get("content", "") for event in session_events(workspace))


def test_headless_says_when_there_is_no_sandbox(workspace: Path, isolated_config: Path) -> None:
    config = isolated_config / "swetui"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('sandbox = "off"\n')
    done = subprocess.run([sys.executable, "-m", "swetui", "run",
                           'run "touch made.txt"', "--yes", "--mode", "auto"],
                          cwd=workspace, capture_output=True, text=True, timeout=WAIT)
    assert "no sandbox" in done.stderr
    # --yes answers what asks, so it runs (unconfined, tied to swetui's life) ...
    assert (workspace / "made.txt").exists()
    # ... but in auto mode without --yes a command that is not plainly read-only asks.
    denied = subprocess.run([sys.executable, "-m", "swetui", "run",
                             'run "touch other.txt"', "--mode", "auto"],
                            cwd=workspace, capture_output=True, text=True, timeout=WAIT)
    assert not (workspace / "other.txt").exists()
    assert "denied" in denied.stdout


def test_a_fork_storm_of_detached_children_dies_with_swetui(workspace: Path,
                                                            confinement: str) -> None:
    """setsid'd children forked in a loop, ignoring SIGTERM: none outlives a SIGKILLed swetui
    (the supervisor stops the tree before killing it, so forks cannot outrun it)."""
    marker = f"swetui-storm-{os.getpid()}-{workspace.parent.name}"
    command = (f"trap '' TERM; for i in $(seq 1 200); do (setsid bash -c 'exec -a {marker} "
               f"sleep 300' &); done; echo started > started.txt; exec -a {marker} sleep 300")
    kill_swetui_mid_command(workspace, command, marker, signal.SIGKILL,
                            lambda: (workspace / "started.txt").exists())
