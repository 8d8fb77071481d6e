"""Tool calls written as text: what counts as a call and what never does (laws + examples)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.providers.events import TextDelta, ToolCallEnd
from swetui.providers.text_call_stream import TextCallFilter
from swetui.providers.text_calls import (
    TextCall,
    find_text_calls,
    render_call,
    text_tools_prompt,
)

SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
PATHS = st.text("abcdefghijklmnopqrstuvwxyz_/.", min_size=1, max_size=20)


def _calls() -> st.SearchStrategy[TextCall]:
    """A valid call of an offered tool."""
    return st.one_of(
        st.builds(lambda p: TextCall("read_file", {"path": p}), PATHS),
        st.builds(lambda p, o, n: TextCall("edit_file", {"path": p, "old": o, "new": n}),
                  PATHS, SAFE_TEXT, SAFE_TEXT),
        st.builds(lambda c: TextCall("bash", {"command": c}), SAFE_TEXT),
        st.builds(lambda p: TextCall("glob", {"pattern": p}), PATHS),
    )


def _as_json(call: TextCall, shape: int) -> dict[str, Any]:
    if shape == 0:
        return {"name": call.name, "arguments": call.arguments}
    if shape == 1:
        return {"name": call.name, "parameters": call.arguments}
    if shape == 2:
        return {"type": "function", "function": {"name": call.name,
                                                 "arguments": json.dumps(call.arguments)}}
    return {"name": call.name, "arguments": json.dumps(call.arguments)}


def _write(value: Any, form: int) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2 if form % 2 else None)
    if form == 2:
        return f"```json\n{text}\n```"
    if form == 3:
        return f"\n```\n{text}\n```\n"
    return text


@given(st.lists(_calls(), min_size=1, max_size=3), st.integers(0, 3), st.integers(0, 3))
def test_a_whole_answer_call_or_list_round_trips(calls, shape, form):
    value: Any = _as_json(calls[0], shape) if len(calls) == 1 else \
        [_as_json(call, shape) for call in calls]
    found = find_text_calls(_write(value, form), TOOL_SCHEMAS)
    assert found is not None
    assert list(found.calls) == calls and found.text == ""


@given(st.lists(_calls(), min_size=1, max_size=3),
       SAFE_TEXT.filter(lambda t: "<" not in t and "`" not in t),
       SAFE_TEXT.filter(lambda t: "<" not in t and "`" not in t))
def test_tagged_calls_round_trip_and_the_prose_around_them_stays(calls, before, after):
    text = before + "\n" + "\n".join(render_call(c.name, c.arguments) for c in calls) + after
    found = find_text_calls(text, TOOL_SCHEMAS)
    assert found is not None
    assert list(found.calls) == calls
    assert "tool_call" not in found.text
    assert found.text == (before + "\n" + "\n" * (len(calls) - 1) + after).strip()


@given(_calls(), SAFE_TEXT.filter(lambda t: t.strip() and "<" not in t and "`" not in t),
       st.integers(0, 3))
def test_a_call_inside_prose_never_fires(call, prose, form):
    inner = _write(_as_json(call, 0), form)
    assert find_text_calls(f"{prose}\n{inner}", TOOL_SCHEMAS) is None
    assert find_text_calls(f"{inner}\n{prose}", TOOL_SCHEMAS) is None


@given(_calls(), SAFE_TEXT)
def test_tags_inside_a_code_example_never_fire(call, prose):
    example = f"{prose}\nHere is the format:\n```xml\n{render_call(call.name, call.arguments)}\n```"
    assert find_text_calls(example, TOOL_SCHEMAS) is None


@given(_calls(), st.sampled_from(["nope", "rm_rf", "read", ""]))
def test_only_offered_tools_with_valid_arguments_fire(call, name):
    unknown = json.dumps({"name": name, "arguments": call.arguments})
    assert find_text_calls(unknown, TOOL_SCHEMAS) is None
    missing = json.dumps({"name": "edit_file", "arguments": {"path": "a.py"}})
    assert find_text_calls(missing, TOOL_SCHEMAS) is None
    wrong_type = json.dumps({"name": "read_file", "arguments": {"path": 3}})
    assert find_text_calls(wrong_type, TOOL_SCHEMAS) is None
    extra = json.dumps({"name": "read_file", "arguments": {"path": "a", "mode": "rw"}})
    assert find_text_calls(extra, TOOL_SCHEMAS) is None
    assert find_text_calls(json.dumps({**_as_json(call, 0), "why": "x"}), TOOL_SCHEMAS) is None


@given(SAFE_TEXT)
def test_plain_text_is_never_a_call(text):
    assert find_text_calls(text, TOOL_SCHEMAS) is None


def test_the_issue_s_answer_is_a_call():
    answer = ('```json\n{"name": "edit_file", "arguments": {"path": "src/calc.py", '
              '"old": "- b", "new": "+ b"}}\n```')
    found = find_text_calls(answer, TOOL_SCHEMAS)
    assert found is not None
    assert found.calls == (TextCall("edit_file", {"path": "src/calc.py", "old": "- b",
                                                  "new": "+ b"}),)


def test_a_python_code_example_the_user_asked_for_is_not_a_call():
    answer = '```python\ncall = {"name": "read_file", "arguments": {"path": "a.py"}}\n```'
    assert find_text_calls(answer, TOOL_SCHEMAS) is None
    fenced_json_in_answer = ('To read a file the agent sends:\n```json\n{"name": "read_file", '
                             '"arguments": {"path": "a.py"}}\n```\nThat is all.')
    assert find_text_calls(fenced_json_in_answer, TOOL_SCHEMAS) is None


def test_no_tools_offered_means_no_calls():
    assert find_text_calls('{"name": "read_file", "arguments": {"path": "a"}}', ()) is None


def test_the_prompt_names_every_tool_and_the_format():
    prompt = text_tools_prompt(TOOL_SCHEMAS)
    assert "<tool_call>" in prompt and "</tool_call>" in prompt
    for tool in TOOL_SCHEMAS:
        assert f"- {tool.name}:" in prompt


def _stream(text: str, cuts: list[int]) -> tuple[str, list[ToolCallEnd]]:
    """`text` through the streaming filter, cut at `cuts`: what is shown and the calls."""
    held = TextCallFilter(TOOL_SCHEMAS)
    shown = []
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    for start, end in zip(points, points[1:], strict=False):
        shown.append(held.text(text[start:end]))
    events = held.finish(0)
    shown.extend(e.text for e in events if isinstance(e, TextDelta))
    return "".join(shown), [e for e in events if isinstance(e, ToolCallEnd)]


ANSWERS = st.one_of(
    SAFE_TEXT,
    st.builds(lambda c, f: _write(_as_json(c, 0), f), _calls(), st.integers(0, 3)),
    st.builds(lambda p, c, a: f"{p}\n{render_call(c.name, c.arguments)}{a}",
              SAFE_TEXT.filter(lambda t: "`" not in t and "<" not in t), _calls(),
              SAFE_TEXT.filter(lambda t: "`" not in t and "<" not in t)),
    st.builds(lambda p, c: f"{p}\n```xml\n{render_call(c.name, c.arguments)}\n```", SAFE_TEXT,
              _calls()),
)


@given(ANSWERS, st.lists(st.integers(0, 400), max_size=8))
def test_streaming_in_any_pieces_finds_what_the_whole_answer_holds(text, cuts):
    shown, ends = _stream(text, cuts)
    found = find_text_calls(text, TOOL_SCHEMAS)
    if found is None:
        assert shown == text and not ends  # nothing held back for good, nothing invented
    else:
        assert [TextCall(e.name, e.arguments or {}) for e in ends] == list(found.calls)
        assert "<tool_call>" not in shown and '"arguments"' not in shown
        assert shown.strip() == found.text
