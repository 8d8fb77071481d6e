"""The plan, the session notes and the running summary change from turn to turn; they are
sent after the newest message, so two consecutive requests where only the plan changed
share their whole prefix byte for byte (the provider's cache keeps serving it)."""

from __future__ import annotations

from tests.agent.scripted import answer, calls
from tests.long.test_limits import configure, open_session


async def test_a_plan_change_leaves_the_prefix_of_the_request_as_it_was(workspace):
    configure(workspace, "warn_turns = 0\n")
    step = {"content": "read the config", "status": "in_progress"}
    session = open_session(
        workspace, calls(("p1", "todo", {"items": [step]})), answer("planned"),
        calls(("p2", "todo", {"items": [{**step, "status": "completed"}]})), answer("done"))
    await session.send("make a plan")
    await session.send("mark it done")
    requests = session.provider.requests
    before, after = requests[2], requests[3]  # around the second todo call: only the plan moved
    assert before.system == after.system and before.tools == after.tools
    assert after.messages[:len(before.messages)] == before.messages
    assert "read the config" in after.context and before.context != after.context
    await session.aclose()
