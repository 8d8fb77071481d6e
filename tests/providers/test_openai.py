"""OpenAI chat completions against a loopback server speaking real chunked SSE."""

from __future__ import annotations

import json

from swetui.messages import ChatRequest, Message, ToolCall, ToolSchema
from swetui.providers.events import (
    Done,
    StreamError,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from tests.providers.helpers import API_KEY, ask, collect, text_of
from tests.providers.loopback import sse


def chunk(delta: dict | None = None, finish: str | None = None, **extra: object) -> dict:
    """One chat.completion.chunk with a single choice."""
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}], **extra}


USAGE = {"id": "chatcmpl-1", "choices": [],
         "usage": {"prompt_tokens": 120, "completion_tokens": 17, "total_tokens": 137}}


def tool_fragment(index: int, arguments: str, call_id: str | None = None,
                  name: str | None = None) -> dict:
    fragment: dict = {"index": index, "function": {"arguments": arguments}}
    if call_id:
        fragment.update(id=call_id, type="function")
        fragment["function"]["name"] = name
    return chunk({"tool_calls": [fragment]})


async def test_text_reasoning_usage_and_keepalives(server, openai):
    server.script(sse(
        ": keep-alive\n\n",
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning_content": "Let me "}),
        ": OPENROUTER PROCESSING\n\n",
        chunk({"reasoning": "think."}),
        chunk({"content": "Hello"}),
        chunk({"content": ", world"}),
        chunk(finish="stop"),
        USAGE,
        "data: [DONE]\n\n",
    ))
    events = await collect(openai())
    assert text_of(events, "reasoning") == "Let me think."
    assert text_of(events) == "Hello, world"
    reasoning_end = max(i for i, e in enumerate(events) if e.kind == "reasoning")
    text_start = min(i for i, e in enumerate(events) if e.kind == "text")
    assert reasoning_end < text_start
    assert events[-2:] == [Usage(input_tokens=120, output_tokens=17), Done(stop_reason="stop")]


async def test_tool_call_arguments_split_over_chunks_and_two_calls(server, openai):
    server.script(sse(
        chunk({"role": "assistant", "content": None}),
        tool_fragment(0, "", "call_a", "read_file"),
        tool_fragment(0, '{"pa'),
        tool_fragment(0, 'th": "src/ap'),
        tool_fragment(0, 'p.py"}'),
        tool_fragment(1, "", "call_b", "grep"),
        tool_fragment(1, '{"pattern": "TO'),
        tool_fragment(1, 'DO", "path": "src"}'),
        chunk(finish="tool_calls"),
        USAGE,
        "data: [DONE]\n\n",
    ))
    events = await collect(openai())
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.id, s.name) for s in starts] == [(0, "call_a", "read_file"),
                                                        (1, "call_b", "grep")]
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert "".join(d.arguments_delta for d in deltas if d.index == 0) == '{"path": "src/app.py"}'
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.id, e.name, e.arguments, e.error) for e in ends] == [
        ("call_a", "read_file", {"path": "src/app.py"}, None),
        ("call_b", "grep", {"pattern": "TODO", "path": "src"}, None),
    ]
    # Every delta of a call comes after its start and before its end.
    first_end = events.index(ends[0])
    assert all(events.index(d) < first_end for d in deltas if d.index == 0)
    assert events[-1] == Done(stop_reason="tool_calls")


async def test_malformed_tool_arguments_end_with_an_error_not_a_crash(server, openai):
    server.script(sse(
        tool_fragment(0, '{"path": "a.py"', "call_x", "read_file"),  # never closed
        chunk(finish="tool_calls"),
        "data: [DONE]\n\n",
    ))
    events = await collect(openai())
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.arguments is None
    assert end.raw_arguments == '{"path": "a.py"'
    assert "not valid JSON" in (end.error or "")
    assert isinstance(events[-1], Done)


async def test_request_body_maps_the_conversation(server, openai):
    server.script(sse(chunk({"content": "ok"}), chunk(finish="stop"), "data: [DONE]\n\n"))
    tool = ToolSchema(name="read_file", description="Read a file.",
                      parameters={"type": "object", "properties": {"path": {"type": "string"}},
                                  "required": ["path"]})
    request = ChatRequest(
        model="ignored", system="You are careful.", tools=(tool,), max_tokens=512,
        temperature=0.2,
        messages=(
            Message(role="user", content="read a.py"),
            Message(role="assistant", content="",
                    tool_calls=(ToolCall(id="call_1", name="read_file",
                                         arguments={"path": "a.py"}),)),
            Message(role="tool", tool_call_id="call_1", name="read_file",
                    content="no such file", is_error=True),
            Message(role="user", content="thanks"),
        ))
    await collect(openai(), request)
    received = server.requests[0]
    assert (received.method, received.path) == ("POST", "/v1/chat/completions")
    assert received.headers["authorization"] == f"Bearer {API_KEY}"
    body = received.json
    assert body["model"] == "gpt-test"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 512 and body["temperature"] == 0.2
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool",
                                                     "user"]
    assert body["messages"][0]["content"] == "You are careful."
    call = body["messages"][2]["tool_calls"][0]
    assert call["id"] == "call_1" and call["type"] == "function"
    assert json.loads(call["function"]["arguments"]) == {"path": "a.py"}
    assert body["messages"][3]["tool_call_id"] == "call_1"
    assert "no such file" in body["messages"][3]["content"]
    assert body["tools"] == [{"type": "function", "function": {
        "name": "read_file", "description": "Read a file.", "parameters": tool.parameters}}]


async def test_malformed_data_line_is_skipped(server, openai):
    server.script(sse(
        chunk({"content": "Hel"}),
        "data: {not json at all\n\n",
        chunk({"content": "lo"}),
        chunk(finish="stop"),
        "data: [DONE]\n\n",
    ))
    events = await collect(openai())
    assert text_of(events) == "Hello"
    assert isinstance(events[-1], Done)


async def test_only_malformed_data_ends_with_a_clear_error(server, openai):
    server.script(sse("data: <html>oops</html>\n\n", "data: {\"trunc\n\n"))
    events = await collect(openai())
    error = events[-1]
    assert isinstance(error, StreamError)
    assert "malformed" in error.message and "ended before the model finished" in error.message
    assert len(server.requests) == 1  # garbage is not worth a retry


async def test_in_stream_error_object_becomes_a_stream_error(server, openai):
    server.script(sse(chunk({"content": "Par"}),
                      {"error": {"message": "upstream model overloaded", "code": 502}}))
    events = await collect(openai())
    assert text_of(events) == "Par"
    assert events[-1].kind == "error"
    assert "upstream model overloaded" in events[-1].message


async def test_finish_without_done_marker_still_completes(server, openai):
    server.script(sse(chunk({"content": "Hi"}), chunk(finish="length")))
    events = await collect(openai())
    assert text_of(events) == "Hi"
    assert events[-1] == Done(stop_reason="length")


async def test_early_stop_reading_closes_cleanly(server, openai):
    server.script(sse(*[chunk({"content": f"{n} "}) for n in range(50)], chunk(finish="stop"),
                      "data: [DONE]\n\n"))
    provider = openai()
    stream = provider.stream(ask())
    first = await anext(stream)
    await stream.aclose()  # the user pressed esc
    assert first.kind == "text"
    # The provider is still usable for the next request.
    events = await collect(provider)
    assert text_of(events).startswith("0 1 2 ")
