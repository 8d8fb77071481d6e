"""A session with a local model behind an OpenAI-compatible server on loopback that writes
its tool calls as text and sends no usage (as llama.cpp's server does)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swetui.agent.events import ApprovalRequested
from swetui.agent.session import AgentSession
from swetui.agent.turn_events import AnswerChunk, ToolCallStarted
from swetui.config import ConfigError, load_settings
from swetui.messages import ChatRequest
from swetui.options import LaunchOptions
from swetui.paths import user_config_file
from swetui.providers.events import Done, ProviderEvent, TextDelta
from swetui.providers.openai import OpenAIProvider
from tests.providers.loopback import LoopbackServer, sse

DONE = "data: [DONE]\n\n"


def chunk(delta: dict | None = None, finish: str | None = None) -> dict:
    return {"id": "c", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}


def said(text: str):
    """A llama.cpp-style answer: content in small pieces, no usage chunk."""
    pieces = [chunk({"content": text[i:i + 6]}) for i in range(0, len(text), 6)]
    return sse(*pieces, chunk(finish="stop"), DONE)


@pytest.fixture
async def llama() -> AsyncIterator[LoopbackServer]:
    server = LoopbackServer()
    server.script_path = "/v1/chat/completions"  # /props, /tokenize: 404 unless routed
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return root


def open_session(root: Path, server: LoopbackServer, **provider_options) -> AgentSession:
    provider = OpenAIProvider("qwen", base_url=f"{server.url}/v1", **provider_options)
    return AgentSession.open(LaunchOptions(path=root, model="openai:qwen"), env={},
                             provider=provider)


async def test_an_edit_written_as_json_text_is_approved_applied_and_never_shown(llama, calc):
    edit = {"name": "edit_file", "arguments": {"path": "src/calc.py", "old": "a - b",
                                               "new": "a + b"}}
    llama.script(said(f"```json\n{json.dumps(edit)}\n```"), said("Fixed: add returns a + b."))
    session = open_session(calc, llama)
    seen: list = []
    session.bus.subscribe(seen.append)
    session.bus.subscribe(lambda event: session.queue.approve(event.action.id),
                          ApprovalRequested)
    try:
        finished = await session.send("fix the bug in src/calc.py: add should return a + b")
    finally:
        await session.aclose()
    assert finished.error is None
    assert (calc / "src" / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert [e.name for e in seen if isinstance(e, ToolCallStarted)] == ["edit_file"]
    assert len([e for e in seen if isinstance(e, ApprovalRequested)]) == 1
    shown = "".join(e.text for e in seen if isinstance(e, AnswerChunk))
    assert shown == "Fixed: add returns a + b." and finished.answer == shown
    # The follow-up request carries the call and its result, with "" content, never null.
    follow_up = llama.requests[1].json["messages"]
    call_message = next(m for m in follow_up if m.get("tool_calls"))
    assert call_message["content"] == ""
    assert call_message["tool_calls"][0]["function"]["name"] == "edit_file"
    assert any(m["role"] == "tool" for m in follow_up)


async def test_text_mode_runs_a_tagged_call_and_sends_no_native_tools(llama, calc):
    llama.script(said('<tool_call>\n{"name": "read_file", "arguments": '
                      '{"path": "src/calc.py"}}\n</tool_call>'), said("It subtracts."))
    session = open_session(calc, llama, tool_calls="text")
    try:
        finished = await session.send("what does add do")
    finally:
        await session.aclose()
    assert finished.answer == "It subtracts."
    first, second = (request.json for request in llama.requests)
    assert "tools" not in first and "<tool_call>" in first["messages"][0]["content"]
    assert any("<tool_response" in m["content"] and "a - b" in m["content"]
               for m in second["messages"] if m["role"] == "user")


async def test_the_per_model_setting_chooses_how_tools_are_called(llama, calc):
    config = user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[models."openai:qwen"]\ntool_calls = "text"\n')
    env = {"OPENAI_BASE_URL": f"{llama.url}/v1"}
    llama.script(said("Hello."))
    session = AgentSession.open(LaunchOptions(path=calc, model="openai:qwen"), env=env)
    other = AgentSession.open(LaunchOptions(path=calc, model="openai:other"), env=env)
    try:
        await session.send("hi")
        await other.send("hi")
    finally:
        await session.aclose()
        await other.aclose()
    taught, native = (request.json for request in llama.requests)
    assert "tools" not in taught and "<tool_call>" in taught["messages"][0]["content"]
    assert native["tools"] and "<tool_call>" not in native["messages"][0]["content"]


async def test_the_per_model_temperature_is_sent(llama, calc):
    config = user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[models."openai:qwen"]\ntemperature = 0\n')
    env = {"OPENAI_BASE_URL": f"{llama.url}/v1"}
    llama.script(said("Hello."), said("Hello."))
    session = AgentSession.open(LaunchOptions(path=calc, model="openai:qwen"), env=env)
    other = AgentSession.open(LaunchOptions(path=calc, model="openai:other"), env=env)
    try:
        await session.send("hi")
        await other.send("hi")
    finally:
        await session.aclose()
        await other.aclose()
    cold, default = (request.json for request in llama.requests)
    assert cold["temperature"] == 0 and "temperature" not in default


def test_a_bad_tool_calls_value_names_the_file_and_field(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[models."openai:qwen"]\ntool_calls = "sometimes"\n')
    with pytest.raises(ConfigError, match=r"models\.openai:qwen\.tool_calls"):
        load_settings(None, user_file=config)


class Chatty:
    """A model that answers every request with about 120 tokens, recording what it got."""

    name = "chatty"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        number = len(self.requests)
        yield TextDelta(text=f"Answer {number}: " + "noted and understood, " * 30)
        yield Done()

    async def aclose(self) -> None:
        pass


def _filler(turn: int) -> str:
    return f"Turn {turn}: remember the word marker{turn}. " + "context padding words " * 35


@pytest.mark.parametrize("window", [4_000, 8_000, 16_000])
async def test_a_ten_turn_session_in_a_small_window_always_sends_the_last_turns(calc, window):
    model = Chatty()
    session = AgentSession.open(
        LaunchOptions(path=calc, model="offline", context_limit=window), env={},
        provider=model)
    try:
        assert session.engine.settings.reserve < window // 4  # it scaled with the window
        for turn in range(1, 11):
            finished = await session.send(_filler(turn))
            assert finished.error is None, finished.error
    finally:
        await session.aclose()
    assert len(model.requests) == 10
    for turn, request in enumerate(model.requests, 1):
        sent = "\n".join(m.content for m in request.messages)
        recent = range(max(1, turn - 2), turn + 1)
        assert all(f"marker{n}." in sent for n in recent), (window, turn)
        assert all(f"Answer {n}:" in sent for n in range(max(1, turn - 2), turn)), (window, turn)
        assert request.max_tokens <= window // 6


async def test_a_window_too_small_for_the_tools_is_refused_naming_the_numbers(calc):
    with pytest.raises(ConfigError) as refused:
        AgentSession.open(LaunchOptions(path=calc, model="offline", context_limit=1_000),
                          env={}, provider=Chatty())
    message = str(refused.value)
    assert "1,000 tokens is too small" in message and "system prompt and tools take" in message
    assert "at least" in message
