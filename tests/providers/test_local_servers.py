"""What real local servers (llama.cpp, llama-cpp-python, vLLM, Ollama) do that OpenAI does
not, reproduced on a loopback server speaking their SSE; swetui must survive each."""

from __future__ import annotations

import json

import pytest

from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.messages import ChatRequest, Message, ToolCall
from swetui.providers.events import Done, ToolCallEnd, ToolCallStart, Usage
from tests.providers.helpers import collect, text_of
from tests.providers.loopback import sse
from tests.providers.test_openai import chunk

DONE = "data: [DONE]\n\n"
EDIT = {"path": "src/calc.py", "old": "- b", "new": "+ b"}


def ask_with_tools(text: str = "fix it") -> ChatRequest:
    return ChatRequest(model="m", tools=TOOL_SCHEMAS,
                       messages=(Message(role="user", content=text),))


def streamed(text: str, *, size: int = 7) -> list[dict]:
    """`text` as content deltas of `size` characters, as a server streams tokens."""
    return [chunk({"content": text[i:i + size]}) for i in range(0, len(text), size)]


def ends(events) -> list[ToolCallEnd]:
    return [e for e in events if isinstance(e, ToolCallEnd)]


async def test_repeated_id_and_name_in_every_tool_call_delta(server, openai):
    # llama.cpp repeats the call's id and name in each chunk; OpenAI sends them once.
    def piece(arguments: str) -> dict:
        return chunk({"tool_calls": [{"index": 0, "id": "abc", "type": "function",
                                      "function": {"name": "edit_file",
                                                   "arguments": arguments}}]})
    encoded = json.dumps(EDIT)
    server.script(sse(*(piece(encoded[i:i + 9]) for i in range(0, len(encoded), 9)),
                      chunk(finish="tool_calls"), DONE))
    events = await collect(openai(), ask_with_tools())
    assert [(e.id, e.name) for e in events if isinstance(e, ToolCallStart)] == \
        [("abc", "edit_file")]
    assert [(e.name, e.arguments) for e in ends(events)] == [("edit_file", EDIT)]


async def test_arguments_sent_as_an_object_are_taken_as_they_are(server, openai):
    server.script(sse(chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                             "function": {"name": "edit_file",
                                                          "arguments": EDIT}}]}),
                      chunk(finish="tool_calls"), DONE))
    events = await collect(openai(), ask_with_tools())
    assert [e.arguments for e in ends(events)] == [EDIT]


async def test_the_final_chunk_carries_content_and_the_finish_reason(server, openai):
    server.script(sse(chunk({"content": "The answer is "}),
                      chunk({"content": "42."}, finish="stop"), DONE))
    events = await collect(openai())
    assert text_of(events) == "The answer is 42."
    assert events[-1] == Done(stop_reason="stop")


async def test_no_usage_chunk_means_no_usage_event(server, openai):
    # llama.cpp sends no usage even with stream_options.include_usage: the turn loop then
    # marks its figures estimated (tests/agent/test_local_models.py).
    server.script(sse(chunk({"content": "hi"}), chunk(finish="stop"), DONE))
    events = await collect(openai())
    assert not [e for e in events if isinstance(e, Usage)]


async def test_assistant_calls_are_sent_with_empty_content_never_null(server, openai):
    # llama.cpp answers an assistant message with "content": null with HTTP 500.
    server.script(sse(chunk({"content": "ok"}), chunk(finish="stop"), DONE))
    request = ChatRequest(model="m", tools=TOOL_SCHEMAS, messages=(
        Message(role="user", content="read a.py"),
        Message(role="assistant", tool_calls=(ToolCall(id="c1", name="read_file",
                                                       arguments={"path": "a.py"}),)),
        Message(role="tool", tool_call_id="c1", name="read_file", content="x = 1"),
    ))
    await collect(openai(), request)
    assistant = server.requests[0].json["messages"][1]
    assert assistant["content"] == "" and assistant["tool_calls"]


@pytest.mark.parametrize("cut", [1, 3, 7, 100])
async def test_think_tags_in_the_content_become_reasoning(server, openai, cut):
    text = "<think>\nThe user wants 2+2.\n</think>\n\nIt is 4."
    server.script(sse(*streamed(text, size=cut), chunk(finish="stop"), DONE))
    events = await collect(openai())
    assert text_of(events, "reasoning").strip() == "The user wants 2+2."
    assert text_of(events) == "It is 4."


async def test_a_think_tag_later_in_the_answer_is_text(server, openai):
    text = "Use the <think> tag to open a block."
    server.script(sse(*streamed(text, size=4), chunk(finish="stop"), DONE))
    events = await collect(openai())
    assert text_of(events) == text and not text_of(events, "reasoning")


@pytest.mark.parametrize("answer", [
    '```json\n{"name": "edit_file", "arguments": ' + json.dumps(EDIT) + '}\n```',
    '{"name": "edit_file", "arguments": ' + json.dumps(EDIT) + '}',
    '<tool_call>\n{"name": "edit_file", "arguments": ' + json.dumps(EDIT) + '}\n</tool_call>',
])
async def test_a_call_written_as_text_becomes_a_tool_call_and_is_not_shown(server, openai,
                                                                          answer):
    server.script(sse(*streamed(answer), chunk(finish="stop"), DONE))
    events = await collect(openai(), ask_with_tools())
    assert [(e.name, e.arguments) for e in ends(events)] == [("edit_file", EDIT)]
    assert text_of(events) == ""
    assert events[-1] == Done(stop_reason="tool_calls")


async def test_prose_before_qwen_tags_streams_and_the_tags_do_not(server, openai):
    answer = ("I will read the file first.\n<tool_call>\n"
              '{"name": "read_file", "arguments": {"path": "src/calc.py"}}\n</tool_call>')
    server.script(sse(*streamed(answer, size=5), chunk(finish="stop"), DONE))
    events = await collect(openai(), ask_with_tools())
    assert text_of(events).strip() == "I will read the file first."
    assert [(e.name, e.arguments) for e in ends(events)] == [("read_file",
                                                            {"path": "src/calc.py"})]


async def test_a_code_example_is_shown_whole_and_never_run(server, openai):
    answer = ('Here is how a call looks:\n```json\n{"name": "bash", "arguments": '
              '{"command": "rm -rf /"}}\n```')
    server.script(sse(*streamed(answer, size=3), chunk(finish="stop"), DONE))
    events = await collect(openai(), ask_with_tools())
    assert text_of(events) == answer and not ends(events)


async def test_a_json_answer_that_is_no_call_is_shown(server, openai):
    answer = '{"status": "ok", "items": [1, 2]}'
    server.script(sse(*streamed(answer), chunk(finish="stop"), DONE))
    events = await collect(openai(), ask_with_tools())
    assert text_of(events) == answer and not ends(events)


async def test_native_mode_never_reads_text(server, openai):
    answer = '{"name": "read_file", "arguments": {"path": "a.py"}}'
    server.script(sse(*streamed(answer), chunk(finish="stop"), DONE))
    events = await collect(openai(tool_calls="native"), ask_with_tools())
    assert text_of(events) == answer and not ends(events)


AFTER_A_CALL = ChatRequest(model="m", system="Be brief.", tools=TOOL_SCHEMAS, messages=(
    Message(role="user", content="read a.py"),
    Message(role="assistant", tool_calls=(ToolCall(id="c1", name="read_file",
                                                   arguments={"path": "a.py"}),)),
    Message(role="tool", tool_call_id="c1", name="read_file", content="x = 1"),
    Message(role="user", content="thanks"),
))
"""A request whose history holds one earlier call and its result."""


async def test_text_mode_teaches_the_tools_and_writes_earlier_calls_as_text(server, openai):
    server.script(sse(chunk({"content": "done"}), chunk(finish="stop"), DONE))
    await collect(openai(tool_calls="text"), AFTER_A_CALL)
    body = server.requests[0].json
    assert "tools" not in body
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    system, _, assistant, result = body["messages"]
    assert system["content"].startswith("Be brief.") and "- edit_file:" in system["content"]
    assert '"name": "read_file"' in assistant["content"] and "<tool_call>" in \
        assistant["content"]
    assert "<tool_response" in result["content"] and "x = 1" in result["content"]
    assert result["content"].endswith("thanks")
