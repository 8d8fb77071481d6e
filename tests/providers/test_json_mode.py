"""`tool_calls = "json"`: the server holds every answer to a JSON schema (a call of an offered
tool, or `{"answer": ...}`), as llama.cpp's and llama-cpp-python's servers do with
`response_format`, so a tiny model writes well-formed calls. On a loopback server."""

from __future__ import annotations

import json

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.messages import ChatRequest, Message
from swetui.providers.events import Done, ToolCallEnd
from swetui.providers.text_calls import answer_schema, find_text_calls, json_answer_text
from tests.providers.helpers import collect, text_of
from tests.providers.loopback import sse
from tests.providers.test_local_servers import AFTER_A_CALL, DONE, EDIT, ask_with_tools, streamed
from tests.providers.test_openai import chunk


async def test_the_answer_is_held_to_a_schema_of_the_offered_calls_or_a_reply(server, openai):
    server.script(sse(chunk({"content": '{"answer": "ok"}'}), chunk(finish="stop"), DONE))
    await collect(openai(tool_calls="json"), AFTER_A_CALL)
    body = server.requests[0].json
    assert "tools" not in body
    assert body["response_format"]["type"] == "json_object"
    choices = body["response_format"]["schema"]["anyOf"]
    assert [c["properties"]["name"]["const"] for c in choices[:-1]] == \
        [tool.name for tool in TOOL_SCHEMAS]
    assert choices[-1]["required"] == ["answer"]
    system, _, assistant, result = body["messages"]
    assert "Every answer you give is one JSON object" in system["content"]
    assert "- edit_file:" in system["content"] and "<tool_call>" not in system["content"]
    # Earlier calls are written back in the form the schema allows, results as responses.
    assert json.loads(assistant["content"]) == {"name": "read_file",
                                                "arguments": {"path": "a.py"}}
    assert "<tool_response" in result["content"] and "x = 1" in result["content"]


async def test_a_call_becomes_a_tool_call_and_is_not_shown(server, openai):
    answer = json.dumps({"name": "edit_file", "arguments": EDIT})
    server.script(sse(*streamed(answer, size=4), chunk(finish="stop"), DONE))
    events = await collect(openai(tool_calls="json"), ask_with_tools())
    assert [(e.name, e.arguments) for e in events if isinstance(e, ToolCallEnd)] == \
        [("edit_file", EDIT)]
    assert text_of(events) == "" and events[-1] == Done(stop_reason="tool_calls")
    # What the model wrote still counts as its output when the server reports no usage.
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert json.loads(end.raw_arguments) == EDIT


async def test_a_reply_is_shown_as_its_words_not_as_json(server, openai):
    answer = json.dumps({"answer": 'Fixed: add returns a + b.\n```py\nreturn a + b\n```'})
    server.script(sse(*streamed(answer, size=3), chunk(finish="stop"), DONE))
    events = await collect(openai(tool_calls="json"), ask_with_tools())
    assert text_of(events) == 'Fixed: add returns a + b.\n```py\nreturn a + b\n```'
    assert not [e for e in events if isinstance(e, ToolCallEnd)]


async def test_a_reply_holding_a_call_s_json_never_fires(server, openai):
    # The model's words may quote a call; only the answer's own shape is a call.
    quoted = json.dumps({"name": "bash", "arguments": {"command": "rm -rf ~"}})
    server.script(sse(*streamed(json.dumps({"answer": quoted})), chunk(finish="stop"), DONE))
    events = await collect(openai(tool_calls="json"), ask_with_tools())
    assert text_of(events) == quoted
    assert not [e for e in events if isinstance(e, ToolCallEnd)]


async def test_without_tools_no_schema_is_sent_and_the_answer_is_plain(server, openai):
    server.script(sse(chunk({"content": "A summary."}), chunk(finish="stop"), DONE))
    request = ChatRequest(model="m", messages=(Message(role="user", content="sum up"),))
    events = await collect(openai(tool_calls="json"), request)
    assert "response_format" not in server.requests[0].json
    assert text_of(events) == "A summary."


_SCHEMA = answer_schema(TOOL_SCHEMAS)
_PATHS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_ANSWERS = st.one_of(
    st.builds(lambda text: {"answer": text}, _PATHS),
    st.builds(lambda path: {"name": "read_file", "arguments": {"path": path}}, _PATHS),
    st.builds(lambda path, old, new: {"name": "edit_file",
                                      "arguments": {"path": path, "old": old, "new": new}},
              _PATHS, _PATHS, _PATHS),
    st.builds(lambda command: {"name": "bash", "arguments": {"command": command}}, _PATHS),
    st.builds(lambda form: {"name": "recall", "arguments": {"id": "x1", "form": form}},
              st.sampled_from(["header", "summary", "full", "all"])),
    st.builds(lambda extra: {"name": "read_file", "arguments": {"path": "a", extra: 1}},
              st.sampled_from(["offset", "limit", "mode"])),
    st.builds(lambda name: {"name": name, "arguments": {}}, st.sampled_from(
        ["list_dir", "delete_everything", "todo"])),
)


@settings(max_examples=150, deadline=None)
@given(_ANSWERS)
def test_everything_the_schema_allows_is_understood_and_nothing_else_fires(answer):
    """The law of `json` mode: an answer the server's grammar lets through is either a call
    swetui runs or a reply it shows; an answer the schema refuses is never a call."""
    text = json.dumps(answer, ensure_ascii=False)
    allowed = jsonschema.Draft202012Validator(_SCHEMA).is_valid(answer)
    found = find_text_calls(text, TOOL_SCHEMAS)
    reply = json_answer_text(text)
    if allowed:
        assert (found is not None) != (reply is not None)
        if found is not None:
            assert [(c.name, c.arguments) for c in found.calls] == \
                [(answer["name"], answer["arguments"])]
        else:
            assert reply == answer["answer"]
    else:
        assert found is None
