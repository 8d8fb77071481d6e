"""Waiting on what happened, never on how long it usually takes (tests without a UI; the UI's
own waits are in tests/ui/waits.py).

A fixed sleep is a guess that holds on an idle machine and fails on a loaded one. A test
waits for a condition it can name, checked often; `WAIT` only bounds a wedged test, it is not
a speed requirement: a slow machine is slow, not wrong.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

WAIT = 120.0
"""Seconds before a wait gives up and fails the test."""


async def eventually(condition: Callable[[], Any], what: str, timeout: float = WAIT) -> None:
    """Wait until `condition()` is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting until {what}")
        await asyncio.sleep(0.01)


async def watching(probe: Path, seen: Callable[[str], bool], timeout: float = WAIT) -> None:
    """Return once a file watcher is live: write `probe` until `seen(its text)` says the
    watcher took the change in. A change made before the OS watch is in place is never
    reported, and nothing says when it is in place; after one change came through, every
    later one does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    for attempt in itertools.count():
        text = f"probe {attempt}\n"
        probe.write_text(text)
        # How long to wait before writing again: a shorter or longer guess costs time only.
        retry = loop.time() + 0.1
        while not seen(text):
            if loop.time() > deadline:
                raise AssertionError(f"the watcher never reported a change to {probe}")
            if loop.time() > retry:
                break
            await asyncio.sleep(0.01)
        else:
            return


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


async def wait_dead(pid: int) -> None:
    """Wait until process `pid` is gone: a kill takes effect soon, not at once."""
    await eventually(lambda: not alive(pid), f"process {pid} ended")
