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
import tempfile
import time
from typing import BinaryIO

from swetui.agent.sandbox import SETUP_FAILED, Sandbox, WorkspaceTooLarge, setup_failure
from swetui.agent.sandbox.mounts import under
from swetui.agent.tools.base import ToolResult
from swetui.git_settings import GIT_CONFIG_VARIABLES, split_git_environment
from swetui.secrets import STORE, is_secret_name

MAX_TIMEOUT = 600.0
"""No command may run longer than this (or `bash_timeout`, if the user set more)."""
OUTPUT_CAP = 32_000
"""Bytes of output the model sees at most: the start and the end are kept."""
KILL_GRACE = 2.0
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
DENIAL = re.compile(r"Permission denied|Read-only file system|Operation not permitted|"
                    r"Could not resolve host|Network is unreachable|Temporary failure in name "
                    r"resolution|Name or service not known|No address associated|"
                    r"Cannot assign requested address|getaddrinfo", re.IGNORECASE)
"""What a command prints when the sandbox stopped it (or may have)."""


def scrubbed_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without API keys and secrets, set up for non-interactive use."""
    source = os.environ if environ is None else environ
    held = set(STORE.names())  # configured secrets (`secret_env`) whatever their names
    env = {name: value for name, value in source.items()
           if not is_secret_name(name, value) and name not in held
           and not GIT_CONFIG_VARIABLES.fullmatch(name)}
    # git's settings, without credentials (nor those `secret_env` names)
    env.update(split_git_environment(source, tuple(held))[0])
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


def _read_capped(handle: BinaryIO, cap: int) -> tuple[str, int, int]:
    """(text, bytes dropped, total bytes) keeping the first two thirds and the last third of
    the cap: the start says what ran, the end usually says how it ended."""
    handle.seek(0, os.SEEK_END)
    total = handle.tell()
    handle.seek(0)
    if total <= cap:
        return handle.read().decode("utf-8", "replace"), 0, total
    head_cap = cap * 2 // 3
    head = handle.read(head_cap)
    handle.seek(total - (cap - head_cap))
    tail = handle.read()
    dropped = total - len(head) - len(tail)
    text = (head.decode("utf-8", "replace") + f"\n[… {dropped:,} bytes of output cut …]\n"
            + tail.decode("utf-8", "replace"))
    return text, dropped, total


def sandbox_denial(text: str) -> str | None:
    """The first output line that looks like the sandbox refused something, or None."""
    for line in text.splitlines():
        if DENIAL.search(line):
            return line.strip()[:200]
    return None


_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|`([^`']+)'")


def hidden_outside(text: str, root: str, replaced: list[str]) -> str | None:
    """The first "No such file or directory" line naming a path outside the workspace in a
    place the sandbox replaces by its own (`Sandbox.replaced`: its private `/tmp`, `/dev`,
    `/proc`): there the file may well exist outside the sandbox (`cat ../other/notes.txt`
    in a workspace under /tmp). Elsewhere the sandbox makes a file unreadable, never
    missing: "No such file" there is the truth, and no hint. Judged on the path's name
    only: whether it exists is not looked up, so the hint tells nothing about what is
    there."""
    real_root = os.path.realpath(root)
    for line in text.splitlines():
        if "No such file or directory" not in line:
            continue
        candidates = [group for match in _QUOTED.finditer(line) for group in match.groups()
                      if group]
        candidates += [part.strip() for part in line.split(": ")]
        for candidate in candidates:
            if "/" not in candidate or "\0" in candidate:
                continue
            path = os.path.normpath(os.path.join(real_root, os.path.expanduser(candidate)))
            if not under(path, real_root) and any(under(path, place) for place in replaced):
                return line.strip()[:200]
    return None



def _not_started(command: str, reason: str) -> ToolResult:
    """The result when the sandbox could not start: the command never ran."""
    return ToolResult(content=f"$ {command}\nThe command did not run: the sandbox could not "
                      f"start ({reason}).", is_error=True,
                      summary="not run: the sandbox could not start",
                      data={"exit_code": None, "sandbox_failed": reason})


async def run_command(command: str, cwd: str, timeout: float,
                      output_cap: int = OUTPUT_CAP, *, sandbox: Sandbox | None = None,
                      confine: bool = True) -> ToolResult:
    """Run `command` with `/bin/sh -c` semantics (bash when present) and report.

    With a `sandbox`, the command runs through its exec helper: confined by the kernel when
    `confine` (and the system has the sandbox), and tied to swetui's life either way.
    """
    started = time.monotonic()
    confined = sandbox is not None and confine and sandbox.available
    if sandbox is not None:
        try:
            argv = await asyncio.to_thread(sandbox.argv, command, shell_path(),
                                           confine=confined)
        except WorkspaceTooLarge as exc:
            return _not_started(command, str(exc))
    else:
        argv = [shell_path(), "-c", command]
    # Output goes to a temp file, not a pipe: a background child that keeps the pipe open
    # would otherwise hold the tool until it exits. In the sandbox's private temp directory
    # so `> /dev/stdout` (a reopen of that file) is allowed inside it.
    with tempfile.TemporaryFile(dir=sandbox.scratch if sandbox is not None else None) as sink:
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=scrubbed_environment(),
            stdin=asyncio.subprocess.DEVNULL, stdout=sink, stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        timed_out = False
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            timed_out = True
            await _terminate(process)
        except asyncio.CancelledError:
            await asyncio.shield(_terminate(process))
            raise
        text, dropped, total = _read_capped(sink, output_cap)
    text = ANSI.sub("", text)
    elapsed = time.monotonic() - started
    code = process.returncode
    if sandbox is not None and code == SETUP_FAILED:
        failure = setup_failure(text)
        if failure is not None:
            return _not_started(command, failure)
    notes = []
    if dropped:
        notes.append(f"[output cut: {total:,} bytes in all; the middle "
                     f"{dropped:,} bytes are not shown]")
    denied = None
    if confined and code not in (0, None) and sandbox is not None:
        denied = sandbox_denial(text) or hidden_outside(text, cwd, sandbox.replaced)
    if timed_out:
        notes.append(f"[timed out after {timeout:g} s: the command and its children were "
                     "killed]")
        summary = f"timed out after {timeout:g} s (killed)"
    else:
        notes.append(f"[exit code {code}]")
        lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        summary = f"exit {code} · {lines:,} {'line' if lines == 1 else 'lines'} of output " \
                  f"· {elapsed:.1f} s"
    quarantined = await asyncio.to_thread(sandbox.quarantine_new_git) \
        if sandbox is not None and confined else []
    if quarantined:
        notes.append("[swetui moved git metadata this command created aside, because git "
                     "would run its settings (hooks, core.fsmonitor) outside the sandbox the "
                     "next time anyone runs git there: " + "; ".join(quarantined) + ". To "
                     "create a repository, the user can approve the command with u (run "
                     "unconfined).]")
    if denied:
        notes.append("[it ran in the sandbox, which may have blocked it: writes outside the "
                     "workspace, into .git/ or .swetui/, reading secret files, reading outside "
                     "the workspace other than the system and toolchains (the user can add "
                     "places with sandbox_read), and the network are not allowed there]")
    body = text.rstrip("\n") or "(no output)"
    return ToolResult(content=f"$ {command}\n{body}\n" + "\n".join(notes),
                      is_error=timed_out or code != 0, summary=summary,
                      data={"exit_code": code, "timed_out": timed_out,
                            "duration": round(elapsed, 3), "output_bytes": total,
                            "confined": confined, "sandbox_denied": denied,
                            "quarantined": quarantined})
