"""The approval flow through the toolbox and the queue: per mode, deny with a reason,
approve all, partial hunks, edits before approving, cancellation and restore."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from swetui.agent.approvals import ApprovalQueue, UnknownActionError
from swetui.agent.events import (
    ApprovalCancelled,
    ApprovalDecided,
    ApprovalRequested,
    PendingAction,
)
from swetui.agent.toolbox import Toolbox
from swetui.engine.bus import EventBus
from tests.agent.conftest import Recorder, tool_call, wait_pending
from tests.waiting import WAIT

EDIT = {"path": "src/app.py", "old": "print('hello')", "new": "print('bye')"}


async def test_ask_mode_queues_an_edit_with_a_diff_and_applies_on_approve(
        toolbox: Toolbox, ws_root: Path, recorder: Recorder):
    task = asyncio.create_task(toolbox.run(tool_call("edit_file", **EDIT)))
    [action] = await wait_pending(toolbox.queue)
    assert action.kind == "edit" and action.path == "src/app.py"
    assert "--- a/src/app.py\n+++ b/src/app.py\n" in action.diff
    assert "-    print('hello')\n+    print('bye')" in action.diff
    assert "hello" in (ws_root / "src/app.py").read_text(), "applied before approval"
    toolbox.queue.approve(action.id)
    result = await task
    assert not result.is_error and "bye" in (ws_root / "src/app.py").read_text()
    # The toolbox publishes the approval; the call's start and finish are the turn loop's
    # (tests/agent/test_turn.py checks the whole order).
    assert [type(e) for e in recorder.events] == [ApprovalRequested, ApprovalDecided]
    assert recorder.of(ApprovalDecided)[0].by == "user"


async def test_auto_edit_applies_edits_but_asks_for_commands(make_toolbox, recorder: Recorder):
    toolbox = make_toolbox("auto-edit")
    edited = await toolbox.run(tool_call("edit_file", **EDIT))
    assert not edited.is_error
    assert recorder.of(ApprovalDecided)[0].by == "mode"
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="echo hi")))
    [action] = await wait_pending(toolbox.queue)
    assert action.command == "echo hi" and action.cwd == str(toolbox.root)
    toolbox.queue.approve(action.id)
    assert "hi" in (await task).content


async def test_auto_mode_runs_commands_but_protected_ones_still_ask(make_toolbox,
                                                                    ws_root: Path):
    toolbox = make_toolbox("auto")
    assert "hi" in (await toolbox.run(tool_call("bash", command="echo hi"))).content
    (ws_root / "build").mkdir()
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="rm -rf build")))
    [action] = await wait_pending(toolbox.queue)
    assert action.protected == "deletes a directory tree (rm -r)"
    assert (ws_root / "build").exists()
    toolbox.queue.deny(action.id, "keep the build")
    assert (await task).is_error and (ws_root / "build").exists()
    git = asyncio.create_task(toolbox.run(
        tool_call("write_file", path=".git/hooks/pre-commit", content="#!/bin/sh\n")))
    [hook] = await wait_pending(toolbox.queue)
    assert hook.protected == "writes under .git/"
    toolbox.queue.deny(hook.id)
    await git


async def test_deny_reason_reaches_the_model(toolbox: Toolbox, ws_root: Path):
    task = asyncio.create_task(toolbox.run(tool_call("edit_file", **EDIT)))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.deny(action.id, "use logging instead of print")
    result = await task
    assert result.is_error
    assert result.content == "The user denied this action: use logging instead of print"
    assert result.summary == "denied: use logging instead of print"
    assert "hello" in (ws_root / "src/app.py").read_text()


async def test_approve_all_and_deny_all(toolbox: Toolbox, ws_root: Path):
    tasks = [asyncio.create_task(toolbox.run(tool_call("write_file", path=f"n{i}.txt",
                                                       content=f"{i}\n"))) for i in range(3)]
    pending = await wait_pending(toolbox.queue, 3)
    assert sorted(a.path for a in pending) == ["n0.txt", "n1.txt", "n2.txt"]
    assert toolbox.queue.approve_all() == 3
    results = await asyncio.gather(*tasks)
    assert not any(r.is_error for r in results)
    assert (ws_root / "n2.txt").read_text() == "2\n"
    more = [asyncio.create_task(toolbox.run(tool_call("bash", command=f"echo {i}")))
            for i in range(2)]
    await wait_pending(toolbox.queue, 2)
    assert toolbox.queue.deny_all("not now") == 2
    assert all(r.content.endswith("not now") for r in await asyncio.gather(*more))
    assert toolbox.queue.pending() == []


async def test_partial_hunks_apply_only_accepted_ones_and_tell_the_model(toolbox: Toolbox,
                                                                        ws_root: Path):
    lines = [f"line {n}" for n in range(1, 31)]
    (ws_root / "long.txt").write_text("\n".join(lines) + "\n")
    new = "\n".join("LINE 2" if x == "line 2" else "LINE 25" if x == "line 25" else x
                    for x in lines) + "\n"
    task = asyncio.create_task(toolbox.run(tool_call("write_file", path="long.txt",
                                                     content=new)))
    [action] = await wait_pending(toolbox.queue)
    assert len(action.hunks) == 2
    toolbox.queue.approve(action.id, hunks=[1])
    result = await task
    text = (ws_root / "long.txt").read_text()
    assert "LINE 25" in text and "line 2\n" in text and "LINE 2\n" not in text
    assert "kept hunk 2 of 2" in result.content and "rejected hunk 1 of 2" in result.content
    assert "+LINE 2" in result.content  # the model sees what was not made
    assert result.data["hunks_kept"] == [1] and result.data["hunks_rejected"] == [0]
    assert "partly" in result.summary


async def test_unknown_hunk_index_is_refused(toolbox: Toolbox):
    task = asyncio.create_task(toolbox.run(tool_call("edit_file", **EDIT)))
    [action] = await wait_pending(toolbox.queue)
    with pytest.raises(ValueError, match="no hunk 5"):
        toolbox.queue.approve(action.id, hunks=[5])
    toolbox.queue.approve(action.id, hunks=[])
    result = await task
    assert result.is_error and "rejected every hunk" in result.content


async def test_edited_before_approve(toolbox: Toolbox, ws_root: Path):
    task = asyncio.create_task(toolbox.run(tool_call("edit_file", **EDIT)))
    [action] = await wait_pending(toolbox.queue)
    edited = action.new_content.replace("print('bye')", "print('see you')")
    toolbox.queue.approve(action.id, edited=edited)
    result = await task
    assert "print('see you')" in (ws_root / "src/app.py").read_text()
    assert "The user edited your change" in result.content and "see you" in result.content
    command = asyncio.create_task(toolbox.run(tool_call("bash", command="echo original")))
    [run] = await wait_pending(toolbox.queue)
    toolbox.queue.approve(run.id, edited="echo changed")
    ran = await command
    assert "changed" in ran.content and "original" not in ran.content.split("\n", 1)[1]
    assert "The user changed the command" in ran.content


async def test_unknown_or_finished_id_raises_a_clear_error(toolbox: Toolbox):
    with pytest.raises(UnknownActionError, match="no pending action with id 'nope'"):
        toolbox.queue.approve("nope")
    task = asyncio.create_task(toolbox.run(tool_call("edit_file", **EDIT)))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.approve(action.id)
    await task
    with pytest.raises(KeyError):
        toolbox.queue.deny(action.id, "too late")


async def test_cancelling_the_turn_removes_the_action(toolbox: Toolbox, ws_root: Path,
                                                      recorder: Recorder):
    task = asyncio.create_task(toolbox.run(tool_call("edit_file", **EDIT)))
    [action] = await wait_pending(toolbox.queue)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert toolbox.queue.pending() == []
    assert recorder.of(ApprovalCancelled)[0].action_id == action.id
    assert "hello" in (ws_root / "src/app.py").read_text()


async def decided_twin_done(toolbox: Toolbox, queue: ApprovalQueue) -> None:
    """Restore a write that was approved before the restart and resume it to the end.

    Resuming it takes the same steps as resuming any restored action, minus the wait for a
    decision; resumed after another action, it finishes after that one would have, had that
    one not waited. Its end is the signal that the other one is really waiting."""
    twin = toolbox.prepare(tool_call("write_file", path="twin.txt", content="twin\n"))
    queue.restore([twin])
    queue.approve(twin.id)
    result = await asyncio.create_task(toolbox.resume(twin))
    assert not result.is_error and (toolbox.root / "twin.txt").exists()


async def test_restored_action_stays_pending_and_resumes(make_toolbox, ws_root: Path,
                                                         agent_bus: EventBus):
    first = make_toolbox("ask")
    task = asyncio.create_task(first.run(tool_call("edit_file", **EDIT)))
    [action] = await wait_pending(first.queue)
    saved = action.model_dump_json()  # what the session log keeps
    task.cancel()  # the process dies
    with pytest.raises(asyncio.CancelledError):
        await task
    restored = PendingAction.model_validate_json(saved)
    queue = ApprovalQueue(agent_bus)
    second = make_toolbox("auto", queue=queue)  # even in auto it must not run by itself
    queue.restore([restored])
    resumed = asyncio.create_task(second.resume(restored))
    await decided_twin_done(second, queue)  # had it run by itself, it would have by now
    assert not resumed.done()
    assert [a.id for a in queue.pending()] == [action.id]
    assert "hello" in (ws_root / "src/app.py").read_text()
    queue.approve(action.id)
    result = await resumed
    assert not result.is_error and "bye" in (ws_root / "src/app.py").read_text()


async def test_restored_action_decided_before_resume(agent_bus: EventBus, make_toolbox,
                                                     ws_root: Path):
    toolbox = make_toolbox("ask")
    action = toolbox.prepare(tool_call("write_file", path="later.txt", content="x\n"))
    toolbox.queue.restore([action])
    toolbox.queue.deny(action.id, "no")
    result = await toolbox.resume(action)
    assert result.content == "The user denied this action: no"
    assert not (ws_root / "later.txt").exists()


async def test_restored_action_is_denied_by_a_deny_rule_and_never_allowed_by_one(
        make_toolbox, ws_root: Path, agent_bus: EventBus):
    from swetui.config import ApprovalRule

    toolbox = make_toolbox("ask")
    denied = toolbox.prepare(tool_call("write_file", path="secret/plan.txt", content="x\n"))
    allowed = toolbox.prepare(tool_call("write_file", path="notes.txt", content="y\n"))
    toolbox.rules.workspace.add(ApprovalRule(action="deny", kind="path", pattern="secret/**"))
    toolbox.rules.workspace.add(ApprovalRule(action="allow", kind="path", pattern="notes.txt"))
    toolbox.queue.restore([denied, allowed])
    result = await asyncio.wait_for(toolbox.resume(denied), WAIT)  # no waiting on the user
    assert result.is_error and "not run" in result.content
    assert not (ws_root / "secret" / "plan.txt").exists()
    resumed = asyncio.create_task(toolbox.resume(allowed))
    await decided_twin_done(toolbox, toolbox.queue)  # had it run unasked, it would have by now
    assert not resumed.done()
    assert [action.id for action in toolbox.queue.pending()] == [allowed.id]  # still asks
    assert not (ws_root / "notes.txt").exists()
    toolbox.queue.approve(allowed.id)
    assert not (await resumed).is_error and (ws_root / "notes.txt").exists()
