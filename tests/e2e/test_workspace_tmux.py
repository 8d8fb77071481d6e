"""End to end: `swetui` in a real terminal (tmux), driven with keys as a person would."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.waiting import WAIT

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


class Terminal:
    """One tmux session on a server of its own (its socket in the test's tmp_path, so two
    runs at once never share a server)."""

    def __init__(self, name: str, socket: Path) -> None:
        self.name = name
        self.socket = socket

    def tmux(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True,
                                text=True, timeout=WAIT)
        return result.stdout

    def start(self, command: list[str], env: dict[str, str], size: tuple[int, int]) -> None:
        exports = [f"{key}={value}" for key, value in env.items()]
        self.tmux("new-session", "-d", "-s", self.name, "-x", str(size[0]), "-y", str(size[1]),
                  "env", *exports, *command)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, text: str) -> str:
        """Wait until `text` is on the screen (WAIT bounds a wedged run, not a slow one)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{self.screen()}")

    def stop(self) -> None:
        self.tmux("kill-server")


def test_request_approve_edit_and_check_disk(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    target = workspace / "a.txt"
    target.write_text("hello there\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "TERM": "xterm-256color",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "HOME": str(tmp_path)}
    terminal = Terminal("swetui", tmp_path / "tmux.sock")
    try:
        terminal.start([sys.executable, "-m", "swetui", str(workspace), "--model", "offline"],
                       env, (120, 36))
        terminal.wait_for("type a request below")
        terminal.type('replace "hello" with "world" in a.txt')
        terminal.keys("Enter")
        terminal.wait_for("Waiting for approval")
        assert target.read_text() == "hello there\n"  # nothing applied before approval
        terminal.keys("F5")
        terminal.wait_for("n Deny")  # the approval pane's keys show: it has the focus
        terminal.keys("y")
        terminal.wait_for("Approved edit a.txt")
        terminal.wait_for("Done in")  # the edit is applied before the turn goes on
        assert target.read_text() == "world there\n"
        terminal.keys("C-q")
        deadline = time.monotonic() + WAIT
        while "swetui" in terminal.tmux("list-sessions") and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        terminal.stop()
