"""Anthropic Messages against a loopback server speaking the real event stream."""

from __future__ import annotations

from swetui.messages import ChatRequest, Message, ToolCall, ToolSchema
from swetui.providers.events import (
    Done,
    StreamError,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from tests.providers.helpers import API_KEY, collect, text_of
from tests.providers.loopback import json_reply, sse


def message_start(input_tokens: int = 25, cache_read: int = 0) -> tuple[str, dict]:
    return ("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [], "stop_reason": None,
        "usage": {"input_tokens": input_tokens, "cache_read_input_tokens": cache_read,
                  "output_tokens": 1}}})


def block_start(index: int, block: dict) -> tuple[str, dict]:
    return ("content_block_start",
            {"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, body: dict) -> tuple[str, dict]:
    return ("content_block_delta", {"type": "content_block_delta", "index": index,
                                    "delta": body})


def block_stop(index: int) -> tuple[str, dict]:
    return ("content_block_stop", {"type": "content_block_stop", "index": index})


def message_end(stop_reason: str, output_tokens: int) -> list[tuple[str, dict]]:
    return [("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                               "usage": {"output_tokens": output_tokens}}),
            ("message_stop", {"type": "message_stop"})]


PING = ("ping", {"type": "ping"})


async def test_thinking_text_and_tool_use_with_input_json_delta(server, anthropic):
    server.script(sse(
        message_start(input_tokens=25, cache_read=5),
        PING,
        block_start(0, {"type": "thinking", "thinking": ""}),
        delta(0, {"type": "thinking_delta", "thinking": "The user wants "}),
        delta(0, {"type": "thinking_delta", "thinking": "the readme."}),
        delta(0, {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        delta(1, {"type": "text_delta", "text": "I'll read "}),
        PING,
        delta(1, {"type": "text_delta", "text": "it."}),
        block_stop(1),
        block_start(2, {"type": "tool_use", "id": "toolu_01", "name": "read_file",
                        "input": {}}),
        delta(2, {"type": "input_json_delta", "partial_json": ""}),
        delta(2, {"type": "input_json_delta", "partial_json": '{"path": "REA'}),
        delta(2, {"type": "input_json_delta", "partial_json": 'DME.md", "limit": 20}'}),
        block_stop(2),
        block_start(3, {"type": "tool_use", "id": "toolu_02", "name": "list_dir",
                        "input": {}}),
        block_stop(3),
        *message_end("tool_use", 42),
    ))
    events = await collect(anthropic())
    assert text_of(events, "reasoning") == "The user wants the readme."
    assert text_of(events) == "I'll read it."
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.id, s.name) for s in starts] == [(0, "toolu_01", "read_file"),
                                                        (1, "toolu_02", "list_dir")]
    deltas = [e.arguments_delta for e in events if isinstance(e, ToolCallDelta)]
    assert "".join(deltas) == '{"path": "README.md", "limit": 20}'
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.id, e.arguments) for e in ends] == [("toolu_01", {"path": "README.md",
                                                                 "limit": 20}),
                                                   ("toolu_02", {})]
    assert events[-2:] == [Usage(input_tokens=30, cache_read_tokens=5, output_tokens=42),
                           Done(stop_reason="tool_calls")]


async def test_request_shape_headers_and_grouped_tool_results(server, anthropic):
    server.script(sse(message_start(), *message_end("end_turn", 3)))
    tool = ToolSchema(name="grep", description="Search.",
                      parameters={"type": "object", "properties": {}, "required": []})
    request = ChatRequest(
        system="Be brief.", tools=(tool,), max_tokens=1000,
        messages=(
            Message(role="user", content="find TODO and list files"),
            Message(role="assistant", content="Looking.", tool_calls=(
                ToolCall(id="toolu_a", name="grep", arguments={"pattern": "TODO"}),
                ToolCall(id="toolu_b", name="list_dir", arguments={}))),
            Message(role="tool", tool_call_id="toolu_a", name="grep", content="a.py:1: TODO"),
            Message(role="tool", tool_call_id="toolu_b", name="list_dir",
                    content="denied by the user: not now", is_error=True),
            Message(role="user", content="and?"),
        ))
    events = await collect(anthropic(), request)
    assert events[-1] == Done(stop_reason="stop")
    received = server.requests[0]
    assert received.path == "/v1/messages"
    assert received.headers["anthropic-version"] == "2023-06-01"
    assert received.headers["x-api-key"] == API_KEY
    assert "authorization" not in received.headers
    body = received.json
    assert body["system"] == "Be brief." and body["max_tokens"] == 1000
    assert body["stream"] is True and body["model"] == "claude-test"
    assert body["tools"] == [{"name": "grep", "description": "Search.",
                              "input_schema": tool.parameters}]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_a", "name": "grep", "input": {"pattern": "TODO"}},
        {"type": "tool_use", "id": "toolu_b", "name": "list_dir", "input": {}},
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "a.py:1: TODO"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "denied by the user: not now",
         "is_error": True},
        {"type": "text", "text": "and?"},
    ]


async def test_401_names_the_status_and_the_reason(server, anthropic):
    server.script(json_reply(401, {"type": "error", "error": {
        "type": "authentication_error", "message": "invalid x-api-key"}}))
    events = await collect(anthropic())
    assert events == [StreamError(message="anthropic: 401 Unauthorized: invalid x-api-key",
                                  status=401)]
    assert API_KEY not in events[-1].message


async def test_overloaded_529_is_retried(server, anthropic, sleeps):
    server.script(json_reply(529, {"type": "error", "error": {"type": "overloaded_error",
                                                             "message": "Overloaded"}}),
                  sse(message_start(), block_start(0, {"type": "text", "text": ""}),
                      delta(0, {"type": "text_delta", "text": "ok"}), block_stop(0),
                      *message_end("end_turn", 1)))
    events = await collect(anthropic())
    assert text_of(events) == "ok"
    assert len(sleeps.delays) == 1


async def test_error_event_mid_answer_keeps_the_partial_text(server, anthropic):
    server.script(sse(
        message_start(), block_start(0, {"type": "text", "text": ""}),
        delta(0, {"type": "text_delta", "text": "Half an "}),
        ("error", {"type": "error", "error": {"type": "overloaded_error",
                                              "message": "Overloaded"}}),
    ))
    events = await collect(anthropic())
    assert text_of(events) == "Half an "
    assert events[-1].kind == "error"
    assert events[-1].message == "anthropic: overloaded_error: Overloaded"
    assert len(server.requests) == 1


async def test_error_event_before_any_content_is_retried(server, anthropic):
    overloaded = ("error", {"type": "error", "error": {"type": "overloaded_error",
                                                       "message": "Overloaded"}})
    server.script(sse(message_start(), PING, overloaded),
                  sse(message_start(), block_start(0, {"type": "text", "text": ""}),
                      delta(0, {"type": "text_delta", "text": "second"}), block_stop(0),
                      *message_end("end_turn", 1)))
    events = await collect(anthropic())
    assert text_of(events) == "second"
    assert len(server.requests) == 2


async def test_dropped_before_message_stop_is_an_interruption(server, anthropic):
    server.script(sse(message_start(), block_start(0, {"type": "text", "text": ""}),
                      delta(0, {"type": "text_delta", "text": "Partial"}),
                      block_stop(0), *message_end("end_turn", 2), drop_after=3))
    events = await collect(anthropic())
    assert text_of(events) == "Partial"
    assert "interrupted" in events[-1].message


async def test_max_tokens_stop_reason_is_length(server, anthropic):
    server.script(sse(message_start(), block_start(0, {"type": "text", "text": "cut"}),
                      block_stop(0), *message_end("max_tokens", 9)))
    events = await collect(anthropic())
    assert text_of(events) == "cut"
    assert events[-1] == Done(stop_reason="length")
