"""The bytes the full-screen app writes to a real terminal (a pty) carry no control sequence
from a file name, a file's content or the model: they are shown, not obeyed."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

TITLE = "\x1b]0;pwned\x07"
OSC52 = "\x1b]52;c;cHduZWQ=\x07"
CLEAR = "\x1b[2J"
C1 = "\x9b31m"
INJECTED = (TITLE.encode()[:9], OSC52.encode()[:12], b"\x1b[2JSAFE", "\x9b".encode(),
            "\u202e".encode(), b"\x1b[2Jbody")


class Terminal:
    """swetui on a pseudo-terminal: everything it writes is kept, byte for byte."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 110, 0, 0))
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave,
                                        stderr=slave, start_new_session=True)
        os.close(slave)
        self.output = b""

    def read_until(self, wanted: bytes, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while wanted not in self.output:
            assert time.monotonic() < deadline, f"{wanted!r} never came: {self.output[-2000:]!r}"
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the app ended: the pty is closed
                    chunk = b""
                assert chunk or wanted in self.output, f"ended before {wanted!r}"
                self.output += chunk

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def finish(self) -> int:
        deadline = time.monotonic() + 60
        while self.process.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    break
        if self.process.poll() is None:
            self.process.kill()
        code = self.process.wait()
        os.close(self.master)
        return code


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")
def test_hostile_names_and_contents_never_reach_the_terminal_raw(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / f"evil{TITLE}{CLEAR}SAFE.txt").write_text("x\n")
    (root / "plain.txt").write_text(f"body {OSC52} {CLEAR}body {C1} \u202etxt.exe\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(TERM="xterm-256color", XDG_CONFIG_HOME=str(tmp_path / "xdg"),
               SWETUI_MODEL="offline")
    terminal = Terminal([sys.executable, "-m", "swetui", str(root)], root, env)
    try:
        terminal.read_until(b"type a request")
        terminal.send(b"list files")
        terminal.send(b"\r")
        terminal.read_until(b"pwned")
        terminal.send(b"read plain.txt")
        terminal.send(b"\r")
        terminal.read_until(b"txt.exe")
        terminal.send(b"\x11")  # ctrl+q
    finally:
        code = terminal.finish()
    assert code == 0
    for raw in INJECTED:
        assert raw not in terminal.output, raw
    assert "␛]0;pwned\\x07".encode() in terminal.output  # shown, not dropped
