"""The offline responder: plain requests → real tool calls → a Markdown answer."""

from __future__ import annotations

import re

import pytest

from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.messages import ChatRequest, Message, ToolCall
from swetui.providers.events import (
    Done,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from swetui.providers.offline import OfflineProvider
from tests.providers.helpers import collect, text_of

SCHEMAS = {schema.name: schema.parameters for schema in TOOL_SCHEMAS}
_TYPES = {"string": str, "integer": int, "number": (int, float)}


def assert_valid_call(name: str, arguments: dict) -> None:
    """The call fits the tool schema the model sees (names, required keys, types)."""
    schema = SCHEMAS[name]
    assert set(schema["required"]) <= set(arguments), (name, arguments)
    assert set(arguments) <= set(schema["properties"]), (name, arguments)
    for key, value in arguments.items():
        assert isinstance(value, _TYPES[schema["properties"][key]["type"]]), (name, key)


async def calls_for(text: str) -> list[tuple[str, dict]]:
    events = await collect(OfflineProvider(), ChatRequest(
        messages=(Message(role="user", content=text),)))
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    for end in ends:
        assert end.error is None
        assert_valid_call(end.name, end.arguments or {})
    if ends:
        assert events[-1] == Done(stop_reason="tool_calls")
    return [(end.name, end.arguments) for end in ends]


@pytest.mark.parametrize(("text", "expected"), [
    ("read README.md", [("read_file", {"path": "README.md"})]),
    ("Please SHOW me the file src/app.py.", [("read_file", {"path": "src/app.py"})]),
    ("open `docs/my notes.md`", [("read_file", {"path": "docs/my notes.md"})]),
    ("cat Makefile", [("read_file", {"path": "Makefile"})]),
    ("read src/app.py lines 10-20",
     [("read_file", {"path": "src/app.py", "offset": 10, "limit": 11})]),
    ('find "def greet("', [("grep", {"pattern": re.escape("def greet(")})]),
    ('Search for "TODO" in src', [("grep", {"pattern": "TODO", "path": "src"})]),
    ("grep greet", [("grep", {"pattern": "greet"})]),
    ("search for foo.bar", [("grep", {"pattern": re.escape("foo.bar")})]),
    ("list files", [("list_dir", {})]),
    ("ls", [("list_dir", {})]),
    ("List the directory src", [("list_dir", {"path": "src"})]),
    ("show me the files", [("list_dir", {})]),
    ('replace "hello" with "hi" in src/app.py',
     [("edit_file", {"path": "src/app.py", "old": "hello", "new": "hi"})]),
    ('Replace "a and b" with "c" in "odd name.txt"',
     [("edit_file", {"path": "odd name.txt", "old": "a and b", "new": "c"})]),
    ('run "pytest -q"', [("bash", {"command": "pytest -q"})]),
    ('read README.md and find "Demo" then run "ls -la"',
     [("read_file", {"path": "README.md"}), ("grep", {"pattern": "Demo"}),
      ("bash", {"command": "ls -la"})]),
])
async def test_plain_requests_become_tool_calls(text, expected):
    assert await calls_for(text) == expected


async def test_tool_calls_are_streamed_like_a_model():
    events = await collect(OfflineProvider(chunk_size=8), ChatRequest(
        messages=(Message(role="user", content='replace "x" with "y" in a.py'),)))
    kinds = [e.kind for e in events]
    # Visible reasoning first, then the call in pieces, then usage and done.
    assert kinds[0] == "reasoning" and kinds.count("reasoning") > 1
    start = kinds.index("tool_start")
    assert all(k == "reasoning" for k in kinds[:start])
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert len(deltas) > 1 and "".join(d.arguments_delta for d in deltas) == end.raw_arguments
    start_event = events[start]
    assert isinstance(start_event, ToolCallStart) and start_event.id == end.id
    assert isinstance(events[-2], Usage) and events[-2].output_tokens > 0


async def test_output_is_deterministic():
    request = ChatRequest(messages=(Message(role="user", content='find "x" and list files'),))
    first = await collect(OfflineProvider(), request)
    second = await collect(OfflineProvider(), request)
    assert first == second


def _after_tools(request_text: str, calls: list[ToolCall], results: list[Message]) -> ChatRequest:
    return ChatRequest(messages=(
        Message(role="user", content=request_text),
        Message(role="assistant", tool_calls=tuple(calls)),
        *results,
    ))


async def test_answers_from_tool_results_in_markdown():
    calls = [ToolCall(id="c1", name="read_file", arguments={"path": "src/app.py"}),
             ToolCall(id="c2", name="grep", arguments={"pattern": "greet"}),
             ToolCall(id="c3", name="list_dir", arguments={}),
             ToolCall(id="c4", name="edit_file",
                      arguments={"path": "src/app.py", "old": "hello", "new": "hi"}),
             ToolCall(id="c5", name="bash", arguments={"command": "pytest -q"})]
    results = [
        Message(role="tool", tool_call_id="c1", name="read_file",
                content="     1\tdef greet(name):\n     2\t    return f'hello {name}'\n"
                        "[cut at 2 lines: showed lines 1-2 of 9. Read on with "
                        "read_file(path='src/app.py', offset=3)]"),
        Message(role="tool", tool_call_id="c2", name="grep",
                content="src/app.py:1: def greet(name):\ntests/t.py:3: greet('x')\n"
                        "[skipped 1 file: binary]"),
        Message(role="tool", tool_call_id="c3", name="list_dir", content="README.md\nsrc/"),
        Message(role="tool", tool_call_id="c4", name="edit_file", content="Edited src/app.py"),
        Message(role="tool", tool_call_id="c5", name="bash",
                content="The user denied this action: not on main", is_error=True),
    ]
    events = await collect(OfflineProvider(), _after_tools("do it all", calls, results))
    assert not [e for e in events if e.kind.startswith("tool")]  # no new calls
    assert len([e for e in events if e.kind == "text"]) > 5  # streamed in small pieces
    answer = text_of(events)
    assert "```python\ndef greet(name):\n    return f'hello {name}'\n```" in answer
    assert "*cut at 2 lines: showed lines 1-2 of 9." in answer
    assert "Found 2 matches for `greet`" in answer and "tests/t.py:3: greet('x')" in answer
    assert "README.md\nsrc/" in answer
    assert "Applied the edit to `src/app.py`" in answer
    assert "**bash** `pytest -q` did not go through: The user denied this action: not on main" \
        in answer
    assert events[-1] == Done(stop_reason="stop")


async def test_reports_a_failed_edit_and_long_files_are_cut():
    calls = [ToolCall(id="e", name="edit_file", arguments={"path": "a.py", "old": "x",
                                                           "new": "y"}),
             ToolCall(id="r", name="read_file", arguments={"path": "big.txt"})]
    results = [Message(role="tool", tool_call_id="e", content="`old` not found in a.py",
                       is_error=True),
               Message(role="tool", tool_call_id="r",
                       content="\n".join(f"line {n}" for n in range(1, 101)))]
    answer = text_of(await collect(OfflineProvider(), _after_tools("go", calls, results)))
    assert "`a.py`" in answer and "not found in a.py" in answer
    assert "Applied" not in answer
    assert "line 40" in answer and "line 41\n" not in answer and "60 more lines" in answer


async def test_unknown_request_explains_what_it_can_do_and_how_to_configure():
    events = await collect(OfflineProvider(),
                           ChatRequest(messages=(Message(role="user", content="hello there"),)))
    answer = text_of(events)
    assert not [e for e in events if e.kind.startswith("tool")]
    for needle in ("read README.md", 'find "TODO"', "list files", "replace", "run",
                   "anthropic:MODEL", "ANTHROPIC_API_KEY", "openai:MODEL", "OPENAI_API_KEY",
                   "OPENAI_BASE_URL", "ollama:MODEL", "OLLAMA_HOST", "SWETUI_MODEL",
                   "config.toml"):
        assert needle in answer, needle
    assert events[-1] == Done(stop_reason="stop")


async def test_a_new_request_after_an_answered_one_gets_new_calls():
    request = ChatRequest(messages=(
        Message(role="user", content="read a.py"),
        Message(role="assistant", tool_calls=(ToolCall(id="offline_1_0", name="read_file",
                                                       arguments={"path": "a.py"}),)),
        Message(role="tool", tool_call_id="offline_1_0", content="x = 1"),
        Message(role="assistant", content="Here is a.py"),
        Message(role="user", content="now read b.py"),
    ))
    events = await collect(OfflineProvider(), request)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.id, e.arguments) for e in ends] == [("offline_2_0", {"path": "b.py"})]


async def test_usage_estimates_grow_with_the_request():
    small = await collect(OfflineProvider(),
                          ChatRequest(messages=(Message(role="user", content="ls"),)))
    big = await collect(OfflineProvider(), ChatRequest(
        system="x" * 4000, messages=(Message(role="user", content="ls"),)))
    usage = [e for e in small + big if isinstance(e, Usage)]
    assert usage[1].input_tokens - usage[0].input_tokens == 1000


async def test_a_failing_command_shows_its_output_and_no_matches_is_said_plainly():
    calls = [ToolCall(id="b", name="bash", arguments={"command": "pytest -q"}),
             ToolCall(id="g", name="grep", arguments={"pattern": "nothere"})]
    results = [Message(role="tool", tool_call_id="b", is_error=True,
                       content="$ pytest -q\nE   AssertionError: 1 != 2\n[exit code 1]"),
               Message(role="tool", tool_call_id="g",
                       content="no matches for 'nothere' in the workspace")]
    answer = text_of(await collect(OfflineProvider(), _after_tools("go", calls, results)))
    assert "Ran `pytest -q`; it failed:" in answer and "AssertionError: 1 != 2" in answer
    assert "No matches for `nothere`" in answer and "Found" not in answer


async def test_context_blocks_before_the_request_are_not_read_as_requests():
    from swetui.messages import ChatRequest, Message
    from swetui.providers.events import ToolCallEnd
    from swetui.providers.offline import OfflineProvider

    text = ('<context id="r1" kind="grep" source="grep">\nsearch the files: grep "hello"\n'
            'a.py:1: hello\n</context>\n\nread a.py')
    request = ChatRequest(messages=(Message(role="user", content=text),))
    calls = [event async for event in OfflineProvider().stream(request)
             if isinstance(event, ToolCallEnd)]
    assert [(call.name, call.arguments) for call in calls] == [("read_file", {"path": "a.py"})]
