"""The turn loop through AgentSession, with a scripted model and the real tools."""

from __future__ import annotations

import asyncio

import pytest

from swetui.agent.events import ApprovalDecided, ApprovalRequested
from swetui.agent.session import AgentSession, SessionBusy
from swetui.agent.turn_events import (
    AnswerChunk,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from swetui.engine.items import ItemKind
from swetui.options import LaunchOptions
from swetui.providers.events import StreamError, TextDelta
from tests.waiting import WAIT, eventually, watching

from .scripted import ScriptedProvider, answer, calls


def open_session(root, provider, **options) -> AgentSession:
    return AgentSession.open(LaunchOptions(path=root, **options), env={}, provider=provider)


async def test_tool_results_become_items_and_reach_the_next_request(workspace):
    provider = ScriptedProvider(calls(("c1", "read_file", {"path": "src/app.py"})),
                                answer("It greets.", reasoning="Read it first."))
    session = open_session(workspace, provider)
    seen = []
    session.bus.subscribe(seen.append)
    finished = await session.send("what does src/app.py do")
    assert finished.error is None and finished.answer == "It greets."
    second = provider.requests[1]
    tool_message = next(m for m in second.messages if m.role == "tool")
    assert tool_message.tool_call_id == "c1" and "def greet" in tool_message.content
    assert [m.role for m in second.messages][-3:] == ["user", "assistant", "tool"]
    kinds = [item.kind for item in session.engine if item.turn_created == 1]
    assert ItemKind.TOOL_CALL in kinds and ItemKind.ASSISTANT_MESSAGE in kinds
    assert any(isinstance(e, ToolCallFinished) and "read" in e.summary for e in seen)
    assert session.engine.budget().measured == 1000  # the provider's figure is kept


async def test_malformed_and_unknown_tool_calls_become_errors_the_model_sees(workspace):
    provider = ScriptedProvider(calls(("c1", "read_file", None), ("c2", "fly", {"to": "moon"})),
                                answer("Sorry."))
    session = open_session(workspace, provider)
    finished = await session.send("go")
    assert finished.error is None
    tool_messages = [m for m in provider.requests[1].messages if m.role == "tool"]
    assert "not valid JSON" in tool_messages[0].content and tool_messages[0].is_error
    assert "fly" in tool_messages[1].content and tool_messages[1].is_error


async def test_mid_stream_error_keeps_the_partial_answer(workspace):
    provider = ScriptedProvider([TextDelta(text="Half an "), TextDelta(text="answer"),
                                 StreamError(message="connection lost mid-answer")])
    session = open_session(workspace, provider)
    finished = await session.send("explain")
    assert finished.error == "connection lost mid-answer" and finished.interrupted
    assistant = next(i for i in session.engine if i.kind is ItemKind.ASSISTANT_MESSAGE)
    assert assistant.content.startswith("Half an answer") and "[interrupted]" in assistant.content


async def test_cancel_while_waiting_for_approval_leaves_a_consistent_session(workspace):
    provider = ScriptedProvider(
        calls(("c1", "edit_file", {"path": "src/app.py", "old": "hello", "new": "bye"})),
        answer("done"))
    session = open_session(workspace, provider)
    requested = asyncio.Event()
    session.bus.subscribe(lambda event: requested.set(), ApprovalRequested)
    task = asyncio.create_task(session.send("change greeting"))
    await asyncio.wait_for(requested.wait(), WAIT)
    assert session.busy and len(session.queue.pending()) == 1
    with pytest.raises(SessionBusy):
        await session.send("another")
    assert session.cancel()
    finished = await asyncio.wait_for(task, WAIT)
    assert finished.interrupted
    assert session.queue.pending() == []
    assert "hello" in (workspace / "src" / "app.py").read_text()  # nothing applied
    request = session.engine.assemble().request
    calls_made = [c.id for m in request.messages for c in m.tool_calls]
    results = [m.tool_call_id for m in request.messages if m.role == "tool"]
    assert calls_made == results == ["c1"]  # every call has its result


async def test_cancel_mid_stream_keeps_partial_text(workspace):
    provider = ScriptedProvider([TextDelta(text="Working on")], hang=True)
    session = open_session(workspace, provider)
    chunks = asyncio.Event()
    session.bus.subscribe(lambda event: chunks.set(), AnswerChunk)
    task = asyncio.create_task(session.send("long job"))
    await asyncio.wait_for(chunks.wait(), WAIT)
    session.cancel()
    finished = await asyncio.wait_for(task, WAIT)
    assert finished.interrupted and finished.answer == "Working on"
    assert not session.busy


async def test_pending_approval_survives_a_restart_and_is_never_executed(workspace):
    provider = ScriptedProvider(
        calls(("c1", "edit_file", {"path": "src/app.py", "old": "hello", "new": "bye"})))
    session = open_session(workspace, provider)
    requested = asyncio.Event()
    session.bus.subscribe(lambda event: requested.set(), ApprovalRequested)
    task = asyncio.create_task(session.send("change greeting"))
    await asyncio.wait_for(requested.wait(), WAIT)
    session_id = session.session_id
    # The process "dies" here: no decision was recorded. Reopen from the log alone.
    task.cancel()
    reopened = open_session(workspace, ScriptedProvider(answer("ok")), resume=session_id)
    reopened.start()
    pending = reopened.queue.pending()
    assert [action.call.id for action in pending] == ["c1"]
    assert "hello" in (workspace / "src" / "app.py").read_text()
    reopened.queue.approve(pending[0].id)
    await eventually(lambda: "bye" in (workspace / "src" / "app.py").read_text(),
                     "the approved edit is on disk")


async def test_transcript_is_rebuilt_on_resume(workspace):
    provider = ScriptedProvider(calls(("c1", "list_dir", {})), answer("Two entries."))
    session = open_session(workspace, provider)
    await session.send("list files")
    again = open_session(workspace, ScriptedProvider(), resume=session.session_id)
    names = [type(event).__name__ for event in again.transcript()]
    assert names[0] == "TurnStarted" and "ToolCallFinished" in names
    assert names[-1] == "TurnFinished"
    finished = [e for e in again.transcript() if isinstance(e, TurnFinished)][0]
    assert finished.answer == "Two entries."


async def test_add_path_refuses_outside_and_binary(workspace):
    session = open_session(workspace, ScriptedProvider())
    item = session.add_path("src/app.py")
    assert "def greet" in session.engine.assemble().request.canonical_json()
    assert item.layer.value == "task"
    (workspace / "blob.bin").write_bytes(b"\x00\x01")
    with pytest.raises(ValueError, match="binary"):
        session.add_path("blob.bin")
    with pytest.raises(ValueError):
        session.add_path("../outside.txt")
    with pytest.raises(ValueError, match="no such file"):
        session.add_path("nope.py")


async def test_calibration_ratio_is_kept_across_resume(workspace):
    provider = ScriptedProvider(answer("hi"))
    session = open_session(workspace, provider, model="offline")
    await session.send("hello")
    ratio = session.engine.calibration()
    assert ratio is not None and ratio > 0
    again = open_session(workspace, ScriptedProvider(), resume=session.session_id,
                         model="offline")
    assert again.engine.calibration() == ratio
    assert again.engine.budget().measured == 1000


async def test_watch_updates_an_added_file_when_it_changes_on_disk(workspace):
    session = open_session(workspace, ScriptedProvider())
    item = session.add_path("src/app.py")
    (workspace / "probe.txt").write_text("probe\n")
    probe = session.add_path("probe.txt")
    before = session.engine.budget().total
    watcher = asyncio.create_task(session.watch())
    await watching(workspace / "probe.txt",
                   lambda text: session.engine.get(probe.id).content == text)
    (workspace / "src" / "app.py").write_text("def greet(name):\n    return name * 100\n" * 50)
    await eventually(lambda: "name * 100" in session.engine.get(item.id).content,
                     "the change reached the item")
    watcher.cancel()
    assert session.engine.budget().total > before


async def test_a_tool_call_publishes_one_start_and_one_finish_around_its_approval(workspace):
    provider = ScriptedProvider(
        calls(("c1", "edit_file", {"path": "src/app.py", "old": "hello", "new": "bye"})),
        answer("Edited."))
    session = open_session(workspace, provider)
    seen = []
    session.bus.subscribe(seen.append)
    session.bus.subscribe(lambda event: session.queue.approve(event.action.id),
                          ApprovalRequested)
    finished = await session.send("say bye")
    assert finished.error is None and "bye" in (workspace / "src/app.py").read_text()
    about_the_call = [type(event) for event in seen if isinstance(
        event, ToolCallStarted | ApprovalRequested | ApprovalDecided | ToolCallFinished)]
    assert about_the_call == [ToolCallStarted, ApprovalRequested, ApprovalDecided,
                              ToolCallFinished]
    [done] = [event for event in seen if isinstance(event, ToolCallFinished)]
    assert done.call_id == "c1" and not done.is_error and done.duration >= 0
    # One event per step of the call, no parallel set (the toolbox publishes none).
    assert [type(event).__name__ for event in seen if "Tool" in type(event).__name__] == [
        "ToolCallStarted", "ToolCallFinished"]
