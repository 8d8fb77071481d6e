"""The bash tool: run a command in the workspace root, capped, with a scrubbed environment.

The command runs in its own process group so a timeout or an interrupted turn kills it and
everything it started, not just the shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import time

from swetui.agent.tools.base import ToolResult

MAX_TIMEOUT = 600.0
"""No command may run longer than this (or `bash_timeout`, if the user set more)."""
OUTPUT_CAP = 32_000
"""Bytes of output the model sees at most: the start and the end are kept."""
KILL_GRACE = 2.0
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
SECRET_PREFIXES = ("ANTHROPIC_", "OPENAI_")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def scrubbed_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without API keys and secrets, set up for non-interactive use."""
    source = os.environ if environ is None else environ
    env = {
        name: value for name, value in source.items()
        if not any(word in name.upper() for word in SECRET_WORDS)
        and not name.upper().startswith(SECRET_PREFIXES)
    }
    # Nothing may stop to wait for a human: no pagers, no credential prompts, no colours.
    env.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0", TERM="dumb",
               NO_COLOR="1")
    return env


def shell_path() -> str:
    return shutil.which("bash") or "/bin/sh"


def _kill_group(process: asyncio.subprocess.Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


async def _terminate(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the whole group, then SIGKILL what is left."""
    _kill_group(process, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), KILL_GRACE)
    except TimeoutError:
        pass
    _kill_group(process, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), KILL_GRACE)


class _Output:
    """Keeps the first and the last bytes of a stream, counting what was dropped."""

    def __init__(self, cap: int) -> None:
        self.head_cap, self.tail_cap = cap * 2 // 3, cap - cap * 2 // 3
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[:-self.tail_cap]

    def text(self) -> tuple[str, int]:
        dropped = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", "replace")
        if not self.tail:
            return ANSI.sub("", head), 0
        tail = self.tail.decode("utf-8", "replace")
        middle = f"\n[… {dropped:,} bytes of output cut …]\n" if dropped else ""
        return ANSI.sub("", head + middle + tail), dropped


async def run_command(command: str, cwd: str, timeout: float,
                      output_cap: int = OUTPUT_CAP) -> ToolResult:
    """Run `command` with `/bin/sh -c` semantics (bash when present) and report."""
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        shell_path(), "-c", command, cwd=cwd, env=scrubbed_environment(),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, start_new_session=True,
    )
    output = _Output(output_cap)

    async def pump() -> None:
        assert process.stdout is not None
        while chunk := await process.stdout.read(65536):
            output.add(chunk)

    reader = asyncio.create_task(pump())
    timed_out = False
    try:
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            timed_out = True
            await _terminate(process)
        try:
            # A background child may hold the pipe open after the shell exits.
            await asyncio.wait_for(asyncio.shield(reader), 1.0)
        except TimeoutError:
            await _terminate(process)
            reader.cancel()
    except asyncio.CancelledError:
        await asyncio.shield(_terminate(process))
        reader.cancel()
        raise
    with contextlib.suppress(asyncio.CancelledError):
        await reader
    elapsed = time.monotonic() - started
    text, dropped = output.text()
    code = process.returncode
    notes = []
    if dropped:
        notes.append(f"[output cut: {output.total:,} bytes in all; the middle "
                     f"{dropped:,} bytes are not shown]")
    if timed_out:
        notes.append(f"[timed out after {timeout:g} s: the command and its children were "
                     "killed]")
        summary = f"timed out after {timeout:g} s (killed)"
    else:
        notes.append(f"[exit code {code}]")
        lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        summary = f"exit {code} · {lines:,} {'line' if lines == 1 else 'lines'} of output " \
                  f"· {elapsed:.1f} s"
    body = text.rstrip("\n") or "(no output)"
    return ToolResult(content=f"$ {command}\n{body}\n" + "\n".join(notes),
                      is_error=timed_out or code != 0, summary=summary,
                      data={"exit_code": code, "timed_out": timed_out,
                            "duration": round(elapsed, 3), "output_bytes": output.total})
