"""A stdio server's stderr: read through a pipe, redacted, kept (the last lines in memory,
everything in `.swetui/logs/mcp-<server>.log`) so the user can read why a server failed."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from pathlib import Path
from typing import IO, TextIO

from swetui.paths import open_private_append
from swetui.secrets import redact
from swetui.text import terminal_safe

KEEP_LINES = 200
MAX_LINE = 2_000
"""Characters of one line kept (a server that prints megabytes on one line is cut)."""


class StderrLog:
    """The stderr of one server process, line by line, redacted."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.lines: deque[str] = deque(maxlen=KEEP_LINES)
        self._partial = ""
        self._read_fd: int | None = None
        self._sink: IO[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def open_pipe(self) -> TextIO:
        """A new pipe for the next process: give the returned end as its stderr, then call
        `spawned()`. The other end is read on the event loop."""
        self.close()
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        self._read_fd = read_fd
        if self.file is not None and self._sink is None:
            try:
                self._sink = open_private_append(self.file)
            except OSError:
                self._sink = None  # kept in memory only
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(read_fd, self._readable)
        return open(write_fd, "w", encoding="utf-8", errors="replace")  # noqa: SIM115

    def note(self, text: str) -> None:
        """A line of swetui's own about the server (started, crashed, stopped)."""
        self._line(f"[swetui] {text}")

    def _readable(self) -> None:
        fd = self._read_fd
        if fd is None:
            return
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._stop_reading()
            if self._partial:
                self._line(self._partial)
                self._partial = ""
            return
        text = self._partial + chunk.decode("utf-8", "replace")
        *complete, self._partial = text.split("\n")
        if len(self._partial) > MAX_LINE:
            complete.append(self._partial)
            self._partial = ""
        for line in complete:
            self._line(line)

    def _line(self, line: str) -> None:
        shown = terminal_safe(redact(line[:MAX_LINE]), newlines=False)
        self.lines.append(shown)
        if self._sink is not None:
            with contextlib.suppress(OSError, ValueError):
                self._sink.write(shown + "\n")
                self._sink.flush()

    def _stop_reading(self) -> None:
        fd, self._read_fd = self._read_fd, None
        if fd is None:
            return
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(Exception):
                self._loop.remove_reader(fd)
        with contextlib.suppress(OSError):
            os.close(fd)

    def close(self) -> None:
        self._stop_reading()

    def close_file(self) -> None:
        self.close()
        if self._sink is not None:
            with contextlib.suppress(OSError):
                self._sink.close()
            self._sink = None

    def tail(self, count: int = 40) -> list[str]:
        return list(self.lines)[-count:]
