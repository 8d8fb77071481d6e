"""A session whose symbol map build is held at one file, for tests of what a request does
while the map is still being built: the ledger module they retrieve from, the hold, and
the start/let go/close scaffold that always runs (a failed assertion neither leaves the
build waiting nor the session open)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from swetui.agent import AgentSession
from tests.waiting import WAIT

LEDGER = '''\
class Ledger:
    def settle_balance(self, entries):
        """Adds the entries up; a negative total is an overdrawn account."""
        return sum(entry.amount for entry in entries)
'''
"""`src/ledger.py`: what a request about an overdrawn account, or settle_balance, needs."""


def hold_build(session: AgentSession, at: str, go: threading.Event) -> threading.Event:
    """Make the session's map build stop at the file `at`, before reading it, until `go` is
    set; the event returned is set when the build gets there."""
    symbols = session.repo_map.map
    excluded = symbols.exclude
    reached = threading.Event()

    def hold(rel: str) -> bool:
        if rel == at:
            reached.set()
            go.wait(WAIT)
        return excluded(rel) if excluded is not None else False

    symbols.exclude = hold
    return reached


@asynccontextmanager
async def running(session: AgentSession, go: threading.Event) -> AsyncIterator[AgentSession]:
    """The session started; on leaving, whatever happened, its held build let go and the
    session closed."""
    session.start()
    try:
        yield session
    finally:
        go.set()
        await session.aclose()
