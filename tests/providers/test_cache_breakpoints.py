"""Prompt caching on purpose: what a loopback Anthropic server receives over two turns of a
real session (at most four `cache_control` breakpoints, at the stable boundaries, and the
second request repeating the first one's cached prefix byte for byte), and where an
OpenAI-compatible server gets the context that changes every turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.providers.anthropic import AnthropicProvider
from swetui.providers.openai import OpenAIProvider
from tests.providers.helpers import API_KEY
from tests.providers.loopback import LoopbackServer, sse
from tests.providers.test_anthropic import message_end
from tests.providers.test_openai import chunk
from tests.providers.test_usage import anthropic_start, text_block


def answer(text: str) -> Any:
    return sse(anthropic_start({"input_tokens": 10, "output_tokens": 1}), *text_block(text),
               *message_end("end_turn", 5))


def marked(body: dict[str, Any]) -> list[str]:
    """Where the body carries cache_control: `tools`, `system[i]`, `messages[i][j]`."""
    found = [f"tools[{i}]" for i, tool in enumerate(body.get("tools", []))
             if "cache_control" in tool]
    system = body.get("system")
    if isinstance(system, list):
        found += [f"system[{i}]" for i, block in enumerate(system) if "cache_control" in block]
    for i, turn in enumerate(body["messages"]):
        if isinstance(turn["content"], list):
            found += [f"messages[{i}][{j}]" for j, block in enumerate(turn["content"])
                      if "cache_control" in block]
    return found


def unmarked(value: Any) -> Any:
    """`value` without its cache_control markers (they say where to cache, not what)."""
    if isinstance(value, dict):
        return {key: unmarked(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [unmarked(item) for item in value]
    return value


def cached_prefix(body: dict[str, Any], mark: str) -> str:
    """The body's bytes that a breakpoint at `messages[i][j]` caches: tools, system and the
    messages up to and including that block."""
    i, j = (int(part.rstrip("]")) for part in mark.removeprefix("messages[").split("]["))
    messages = [*body["messages"][:i], {**body["messages"][i],
                                        "content": body["messages"][i]["content"][:j + 1]}]
    return json.dumps(unmarked([body.get("tools"), body.get("system"), messages]),
                      sort_keys=True)


async def test_two_turns_send_four_breakpoints_and_repeat_the_cached_prefix(
        workspace: Path, server: LoopbackServer) -> None:
    (workspace / "AGENTS.md").write_text("Run the tests with pytest -q.\n")
    server.script(answer("First answer."), answer("Second answer."))
    provider = AnthropicProvider("claude-sonnet-4-5", base_url=server.url, api_key=API_KEY,
                                 timeout=10)
    session = AgentSession.open(LaunchOptions(path=workspace,
                                              model="anthropic:claude-sonnet-4-5"),
                                env={}, provider=provider)
    try:
        await session.send("what does README.md say")
        await session.send("and src/app.py?")
    finally:
        await session.aclose()
    first, second = (received.json for received in server.requests)
    # Turn 1: the system prompt (with the tools before it), the memory, the newest message.
    assert marked(first)[:2] == ["system[0]", "system[1]"]
    assert "AGENTS.md" in first["system"][1]["text"]
    assert len(marked(first)) <= 4 and len(marked(second)) == 4
    # Turn 2 adds the end of turn 1 and moves the last breakpoint to the newest message.
    assert marked(second)[2:] == ["messages[1][0]", "messages[2][0]"]
    # What turn 1 cached at its last breakpoint is sent again unchanged, so it is read back.
    assert cached_prefix(second, marked(first)[-1]) == cached_prefix(first, marked(first)[-1])
    # The session notes written after turn 1 come after that prefix, never in the system.
    assert "Session notes" not in json.dumps(second["system"])
    last_turn = second["messages"][-1]["content"]
    assert "Session notes" in last_turn[-1]["text"] and "cache_control" not in last_turn[-1]


async def test_openai_compatible_servers_get_the_changing_context_last(
        workspace: Path, server: LoopbackServer) -> None:
    (workspace / "notes.txt").write_text("the word is pelican\n")
    server.script(sse(chunk({"content": "ok"}), chunk(finish="stop"), "data: [DONE]\n\n"))
    provider = OpenAIProvider("gpt-4o", base_url=f"{server.url}/v1", api_key=API_KEY,
                              timeout=10)
    session = AgentSession.open(LaunchOptions(path=workspace, model="openai:gpt-4o"), env={},
                                provider=provider)
    try:
        await session.send("what is in notes.txt")
    finally:
        await session.aclose()
    messages = server.requests[0].json["messages"]
    assert messages[0]["role"] == "system"
    assert messages[-2] == {"role": "user", "content": "what is in notes.txt"}
    assert messages[-1]["role"] == "user" and "pelican" in messages[-1]["content"]
