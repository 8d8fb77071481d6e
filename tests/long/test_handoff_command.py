"""Ending a chunk by hand: `/handoff` writes the handoff and the next request starts from it;
the transcript says a boundary happened (not a compaction that grew the request), and counts
read as words ("1 turn")."""

from __future__ import annotations

import asyncio
import json

import pytest

from swetui.agent.busy import SessionBusy
from swetui.agent.session import AgentSession
from swetui.agent.turn_events import SessionLimit
from swetui.options import LaunchOptions
from tests.agent.scripted import ScriptedProvider, answer
from tests.long.test_limits import configure, open_session
from tests.waiting import eventually


async def test_handoff_ends_the_chunk_now_and_the_next_request_starts_from_it(workspace):
    configure(workspace, "warn_turns = 1\nsoft_chunk_turns = 0\n")
    session = open_session(workspace, answer("first answer"), answer("second answer"))
    events: list[SessionLimit] = []
    session.bus.subscribe(events.append, SessionLimit)
    with pytest.raises(ValueError, match="no turn yet"):
        session.handoff()
    await session.send("the first request (turn 1)")
    assert [event.message for event in events] == [
        "1 turn in this chunk: automatic handoffs are off (soft_chunk_turns = 0); /handoff "
        "starts a new chunk"]
    written = session.handoff()
    assert written is not None and written.stat().st_mode & 0o777 == 0o600
    record = json.loads(written.read_text())
    assert record["trigger"] == "you asked for it (/handoff)" and record["turns_completed"] == 1
    chunk = [event for event in events if event.kind == "chunk"]
    assert len(chunk) == 1 and "(you asked for it (/handoff), 1 turn)" in chunk[0].message
    with pytest.raises(ValueError, match="no turn yet"):
        session.handoff()  # the new chunk has nothing to hand off yet
    await session.send("carry on (turn 2)")
    request = session.provider.requests[-1]
    sent = request.system + "".join(message.content for message in request.messages) + \
        request.context
    assert "Handoff from chunk 1" in sent and "(turn 2)" in sent
    assert "(turn 1)" not in "".join(message.content for message in request.messages)
    assert session.stats()["chunk"] == 2
    await session.aclose()


async def test_handoff_is_refused_while_the_agent_works(workspace):
    configure(workspace, "warn_turns = 0\n")
    session = AgentSession.open(LaunchOptions(path=workspace, watch=False), env={},
                                provider=ScriptedProvider(answer("one"), answer("two"),
                                                          hang=True))
    first = asyncio.create_task(session.send("turn 1"))
    await eventually(lambda: len(session.provider.requests) == 1, "the first request was sent")
    session.cancel()
    await first
    turn = asyncio.create_task(session.send("turn 2, still running"))
    await eventually(lambda: len(session.provider.requests) == 2, "the second request was sent")
    with pytest.raises(SessionBusy):
        session.handoff()
    session.cancel()
    await turn
    assert session.handoff() is not None  # once the turn has ended, it hands off
    await session.aclose()
