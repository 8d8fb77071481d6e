"""End to end in a real terminal: with keys in its environment, swetui restarts itself
without them, on the same terminal and with the same pid, and quits as before."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import PLANTED
from tests.e2e.terminal import Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_the_workspace_runs_on_its_terminal_without_the_keys(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    terminal = Terminal("swetui-keys", tmp_path)
    try:
        terminal.start_swetui(workspace, (120, 36), "--mode", "auto", env=PLANTED)
        terminal.wait_for("type a request below")  # drawn: the terminal is still a tty
        pid = terminal.pane_pid()
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"XDG_CONFIG_HOME=" in environ  # the right process: env exec'd it
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        for value in PLANTED.values():
            assert value.encode() not in environ and value.encode() not in cmdline
        assert os.readlink(f"/proc/{pid}/fd/0").startswith("/dev/pts/")  # still the terminal
        terminal.keys("C-q")
        assert terminal.wait_closed()
    finally:
        terminal.stop()
