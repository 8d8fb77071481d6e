"""The "done when" of long sessions: a 45-turn headless session against a model on loopback
(real HTTP on 127.0.0.1, the OpenAI streaming protocol) shows the turn warning, chunk
boundaries with their handoff files, requests that start from the handoff, the plan kept
through every chunk, and automatic compaction firing a handful of times, not every turn."""

from __future__ import annotations

import json
from pathlib import Path

from swetui.agent.session import AgentSession
from swetui.agent.turn_events import PlanChanged, SessionLimit
from swetui.engine.events import CompactionFinished
from swetui.options import LaunchOptions
from swetui.providers.registry import create_provider
from tests.headless import answer, tool_call
from tests.providers.loopback import LoopbackServer
from tests.trusted import trust_workspace

TURNS = 45
PLAN = [{"content": "read every module", "status": "in_progress"},
        {"content": "summarise the findings", "status": "pending"}]


def module(n: int) -> str:
    return "".join(f"def handler_{n}_{k}(value):\n    return transform_{n}_{k}(value) + {k}\n"
                   for k in range(40))


def script(server: LoopbackServer) -> None:
    replies = [tool_call("todo", {"items": PLAN}, "plan_1")]
    for turn in range(1, TURNS + 1):
        replies.append(tool_call("read_file", {"path": f"mod_{turn}.py"}, f"call_{turn}"))
        replies.append(answer(f"Read mod_{turn}.py: handler_{turn}_0 looks fine (turn {turn})."))
    server.script(*replies)


def configure(workspace: Path) -> None:
    for n in range(1, TURNS + 1):
        (workspace / f"mod_{n}.py").write_text(module(n))
    (workspace / ".swetui").mkdir(exist_ok=True)
    (workspace / ".swetui" / "config.toml").write_text(
        "context_limit = 20000\nreserve_tokens = 1000\ncompaction_threshold = 0.7\n"
        "compaction_target = 0.35\ncompaction_model = \"offline\"\n"
        "warn_turns = 10\nsoft_chunk_turns = 20\nhard_chunk_turns = 0\n")
    trust_workspace(workspace)


async def test_a_45_turn_session_warns_chunks_hands_off_and_compacts_a_handful_of_times(
        workspace: Path) -> None:
    configure(workspace)
    server = LoopbackServer()
    await server.start()
    script(server)
    env = {"OPENAI_BASE_URL": f"{server.url}/v1"}
    session = AgentSession.open(
        LaunchOptions(path=workspace, model="openai:m", watch=False), env=env,
        provider=create_provider("openai:m", env, timeout=30))
    limits: list[SessionLimit] = []
    compactions: list[CompactionFinished] = []
    plans: list[PlanChanged] = []
    session.bus.subscribe(limits.append, SessionLimit)
    session.bus.subscribe(compactions.append, CompactionFinished)
    session.bus.subscribe(plans.append, PlanChanged)
    first_request: dict[int, int] = {}
    try:
        for turn in range(1, TURNS + 1):
            first_request[turn] = len(server.requests)
            finished = await session.send(f"Read mod_{turn}.py and tell me about it (turn {turn})")
            assert finished.error is None, (turn, finished.error)
    finally:
        await session.aclose()
        await server.stop()

    warnings = [event for event in limits if event.kind == "warning"]
    chunks = [event for event in limits if event.kind == "chunk"]
    assert [(event.turn, "10 turns" in event.message) for event in warnings] == \
        [(10, True), (30, True)]
    assert [(event.turn, event.chunk) for event in chunks] == [(20, 2), (40, 3)]

    # each boundary wrote its handoff, with the plan's tasks and a summary of ≤ 2,000 chars
    for number, event in enumerate(chunks, 1):
        path = workspace / ".swetui" / "handoffs" / f"{session.session_id}-{number}.json"
        assert event.handoff == str(path.relative_to(workspace))
        handoff = json.loads(path.read_text())
        assert handoff["turns_completed"] == 20 and handoff["chunk"] == number
        assert handoff["pending_tasks"] == ["read every module", "summarise the findings"]
        assert 0 < len(handoff["summary"]) <= 2000
        assert f"mod_{20 * number}.py" in handoff["summary"]
        assert oct(path.stat().st_mode & 0o777) == "0o600"

    # the next request starts from the handoff: none of the chunk's exchanges are sent
    for turn, chunk in ((21, 1), (41, 2)):
        request = server.requests[first_request[turn]].json
        system = request["messages"][0]["content"]
        assert f"Handoff from chunk {chunk}" in system
        trailing = request["messages"][-1]["content"]  # the plan follows the newest message
        assert "Plan (todo)" in trailing and "read every module" in trailing
        sent = json.dumps(request["messages"][1:-1])  # the exchanges (not notes, the plan)
        assert f"(turn {turn - 1})" not in sent and f"(turn {turn - 20})" not in sent
        assert f"(turn {turn})" in sent

    # automatic compaction settles: a handful of times in 45 turns, not every turn
    automatic = [event for event in compactions if event.trigger == "auto"]
    assert 2 <= len(automatic) <= 8, [(e.tokens_before, e.tokens_after) for e in automatic]
    # each gets well under the threshold (14,000), near the target (7,000), so the next one
    # waits for the request to grow back
    assert all(event.tokens_after <= 10_500 for event in automatic), \
        [(event.tokens_before, event.tokens_after) for event in automatic]
    assert len(plans) == 1

    # the archive keeps the whole history: recall brings back a turn of the first chunk
    reopened = AgentSession.open(LaunchOptions(path=workspace, model="offline", watch=False,
                                               continue_last=True), env={})
    try:
        assert reopened.limits.chunk == 3 and reopened.plan.pending()[0] == "read every module"
        assert "mod_3.py" in reopened._recall("t3", "full")
        system = reopened.engine.assemble().request.system
        assert "Handoff from chunk 2" in system and "Handoff from chunk 1" not in system
    finally:
        await reopened.aclose()
