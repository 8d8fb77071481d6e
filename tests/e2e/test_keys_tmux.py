"""End to end in a real terminal: with keys in its environment, swetui restarts itself
without them, on the same terminal and with the same pid, and quits as before."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import PLANTED
from tests.e2e.test_workspace_tmux import Terminal
from tests.waiting import WAIT

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_the_workspace_runs_on_its_terminal_without_the_keys(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "TERM": "xterm-256color",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "HOME": str(tmp_path),
           **PLANTED}
    terminal = Terminal("swetui-keys", tmp_path / "tmux.sock")
    try:
        terminal.start([sys.executable, "-m", "swetui", str(workspace), "--model", "offline",
                        "--mode", "auto"], env, (120, 36))
        terminal.wait_for("type a request below")  # drawn: the terminal is still a tty
        pid = int(terminal.tmux("display-message", "-p", "-t", terminal.name,
                                "#{pane_pid}").strip())
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"XDG_CONFIG_HOME=" in environ  # the right process: env exec'd it
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        for value in PLANTED.values():
            assert value.encode() not in environ and value.encode() not in cmdline
        assert os.readlink(f"/proc/{pid}/fd/0").startswith("/dev/pts/")  # still the terminal
        terminal.keys("C-q")
        deadline = time.monotonic() + WAIT
        while terminal.name in terminal.tmux("list-sessions") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert terminal.name not in terminal.tmux("list-sessions")
    finally:
        terminal.stop()
