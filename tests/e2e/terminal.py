"""A real terminal (tmux) for end-to-end tests: one server per test, its socket in the
test's tmp_path, so two runs at once never share a server."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from pathlib import Path

from tests.waiting import WAIT

REPO = Path(__file__).resolve().parents[2]
_servers = itertools.count()


class Terminal:
    """One tmux session. Each `start` gets a server of its own: a server whose last session
    just ended may still be exiting, and a new session sent to it is lost (a blank screen)."""

    def __init__(self, name: str, directory: Path) -> None:
        self.name = name
        self.directory = directory
        self.socket = directory / f"tmux-{next(_servers)}.sock"
        self.sockets: list[Path] = []

    def tmux(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True,
                                text=True, timeout=WAIT)
        return result.stdout

    def start(self, command: list[str], env: dict[str, str], size: tuple[int, int]) -> None:
        self.socket = self.directory / f"tmux-{next(_servers)}.sock"
        self.sockets.append(self.socket)
        exports = [f"{key}={value}" for key, value in env.items()]
        result = subprocess.run(
            ["tmux", "-S", str(self.socket), "new-session", "-d", "-s", self.name,
             "-x", str(size[0]), "-y", str(size[1]), "env", *exports, *command],
            capture_output=True, text=True, timeout=WAIT)
        if result.returncode != 0:
            raise AssertionError(f"tmux could not start {command[0]}: {result.stderr.strip()}")

    def start_swetui(self, workspace: Path, size: tuple[int, int], *args: str,
                     env: dict[str, str] | None = None) -> None:
        """swetui on `workspace` with the offline model, its config and home in the test's
        directory (never the user's)."""
        environment = {"XDG_CONFIG_HOME": str(self.directory / "xdg"),
                       "TERM": "xterm-256color", "PYTHONPATH": str(REPO),
                       "HOME": str(self.directory), **(env or {})}
        command = [sys.executable, "-m", "swetui", str(workspace), "--model", "offline", *args]
        self.start(command, environment, size)

    def pane_pid(self) -> int:
        return int(self.tmux("display-message", "-p", "-t", self.name, "#{pane_pid}").strip())

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

    def wait_closed(self) -> bool:
        """Wait until the session has ended (its program exited); whether it did."""
        deadline = time.monotonic() + WAIT
        while self.name in self.tmux("list-sessions"):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    def stop(self) -> None:
        for socket in self.sockets:
            subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True,
                           timeout=WAIT)
