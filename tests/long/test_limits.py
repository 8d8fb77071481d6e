"""Session limits one by one: consecutive failures end a chunk at the next step (never
mid-tool, the running turn kept whole), every limit is off at 0, the plan survives a chunk
and a compaction, and /stats shows the chunk against seed 003's limits."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.session import AgentSession
from swetui.agent.turn_events import SessionLimit
from swetui.engine.items import ItemState
from swetui.options import LaunchOptions
from tests.agent.scripted import ScriptedProvider, answer, calls
from tests.trusted import trust_workspace


def configure(workspace: Path, text: str) -> None:
    (workspace / ".swetui").mkdir(exist_ok=True)
    (workspace / ".swetui" / "config.toml").write_text(text)
    trust_workspace(workspace)


def open_session(workspace: Path, *scripts: list) -> AgentSession:
    return AgentSession.open(LaunchOptions(path=workspace, watch=False), env={},
                             provider=ScriptedProvider(*scripts))


async def test_more_than_three_failures_in_a_row_end_the_chunk_at_the_next_step(workspace):
    configure(workspace, "warn_turns = 0\nsoft_chunk_turns = 0\n")
    failing = [calls((f"f{n}", "read_file", {"path": f"missing_{n}.py"})) for n in range(4)]
    session = open_session(workspace, calls(("p", "todo", {"items": [
        {"content": "find the config", "status": "in_progress"}]})), answer("planned"),
        *failing, answer("none of those exist"))
    events: list[SessionLimit] = []
    session.bus.subscribe(events.append, SessionLimit)
    await session.send("make a plan (turn 1)")
    finished = await session.send("read the missing files (turn 2)")
    assert finished.error is None
    chunks = [event for event in events if event.kind == "chunk"]
    assert len(chunks) == 1 and "repeated failures" in chunks[0].message
    # it fell after the fourth failed call had its result, before the next request
    request = session.provider.requests[-1]
    assert "Handoff from chunk 1" in request.system and "find the config" in request.context
    texts = [message.content for message in request.messages]
    assert any("(turn 2)" in text for text in texts)  # the running turn stays whole
    assert not any("(turn 1)" in text for text in texts)
    tool_results = [m for m in request.messages if m.role == "tool"]
    assert len(tool_results) == 4  # every call of the turn kept its result
    archived = [item for item in session.engine if item.turn_created == 1
                and item.state is ItemState.ARCHIVED]
    assert archived and "plan" in session.engine and session.engine.get("plan").sent
    stats = session.stats()
    assert stats["chunk"] == 2 and stats["chunk_turns"].startswith("1 (")
    await session.aclose()


async def test_every_limit_is_off_at_zero(workspace):
    configure(workspace, "warn_turns = 0\nsoft_chunk_turns = 0\nhard_chunk_turns = 0\n"
                         "chunk_window_share = 0\nchunk_failures = 0\nfiles_read_limit = 0\n"
                         "files_modified_limit = 0\n")
    failing = [calls((f"f{n}", "read_file", {"path": f"missing_{n}.py"})) for n in range(5)]
    session = open_session(workspace, *failing, answer("done"), answer("ok"), answer("ok"))
    events: list[SessionLimit] = []
    session.bus.subscribe(events.append, SessionLimit)
    for turn in range(3):
        await session.send(f"go on ({turn})")
    assert events == []
    stats = session.stats()
    assert stats["chunk"] == 1 and stats["chunk_turns"] == "3"
    await session.aclose()


async def test_warnings_come_once_per_chunk_and_stats_show_the_limits(workspace):
    configure(workspace, "warn_turns = 2\nsoft_chunk_turns = 4\nhard_chunk_turns = 9\n"
                         "files_read_limit = 1\n")
    (workspace / "a.py").write_text("A = 1\n")
    session = open_session(workspace, calls(("r", "read_file", {"path": "a.py"})),
                           *[answer(f"answer {n}") for n in range(5)])
    events: list[SessionLimit] = []
    session.bus.subscribe(events.append, SessionLimit)
    for turn in range(3):
        await session.send(f"turn {turn}")
    warnings = [event.message for event in events if event.kind == "warning"]
    assert len(warnings) == 2
    assert any("files read" in message for message in warnings)
    assert any("2 turns" in message for message in warnings)
    stats = session.stats()
    assert stats["chunk_turns"] == "3 (warn 2, soft 4, hard 9)"
    assert stats["files_read"] == "1 (limit 1)"
    await session.aclose()
