"""Tool calls a model wrote as text instead of the protocol's `tool_calls`.

Many local models and servers (llama.cpp with most GGUF templates, vLLM without its tool
parser, small fine-tunes) answer with the call in the text. Two forms are read:

- the whole answer is one call or a JSON list of calls, bare or in one fenced block;
- Hermes/Qwen tags, `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, anywhere
  outside a fenced code block (the prose around them stays the answer).

Nothing else counts: JSON inside prose or a code example is never a call. Every call must
name an offered tool and carry arguments its schema accepts; otherwise the text is left as
it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from swetui.messages import ToolSchema

ToolCallMode = Literal["native", "text", "auto", "json"]
"""`native`: the protocol's tool calls only; `text`: tools are taught in the system prompt
and calls are read from the text (models with no native tool calling); `auto`: native, and
calls written as text are read too; `json`: as `text`, and the server holds every answer to
a JSON schema (a call of an offered tool, or `{"answer": ...}`), so that even a tiny model
writes a well-formed call."""

ANSWER_FIELD = "answer"
"""In `json` mode, the field of an answer that calls no tool."""

OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"

_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*([\w+-]*)[ \t]*\n(.*?)\n?\1[ \t]*$", re.DOTALL)
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)
_TAGGED = re.compile(re.escape(OPEN_TAG) + r"(.*?)(?:" + re.escape(CLOSE_TAG) + r"|\Z)",
                     re.DOTALL)
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "object": (dict,), "array": (list,), "null": (type(None),),
}


@dataclass(frozen=True)
class TextCall:
    """One call found in the text: the tool's name and its decoded arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class TextCalls:
    """The calls found and the answer text that is left once their text form is removed."""

    calls: tuple[TextCall, ...]
    text: str


def find_text_calls(text: str, tools: Sequence[ToolSchema]) -> TextCalls | None:
    """The calls written in `text`, or None when it holds none to run (see the module)."""
    if not tools or not text.strip():
        return None
    offered = {tool.name: tool for tool in tools}
    tagged = _tagged_calls(text, offered)
    if tagged is not None:
        return tagged
    calls = _whole_answer_calls(text, offered)
    return TextCalls(calls, "") if calls else None


def _whole_answer_calls(text: str, offered: dict[str, ToolSchema]) -> tuple[TextCall, ...]:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        if fenced.group(2).lower() not in ("", "json", "tool_call", "tool_code", "jsonc"):
            return ()
        body = fenced.group(3).strip()
    if not body or body[0] not in "{[":
        return ()
    try:
        value = json.loads(body)
    except ValueError:
        return ()
    return _calls_in(value, offered)


def _tagged_calls(text: str, offered: dict[str, ToolSchema]) -> TextCalls | None:
    fenced = _fenced_spans(text)
    calls: list[TextCall] = []
    kept: list[str] = []
    position = 0
    for match in _TAGGED.finditer(text):
        if any(start <= match.start() < end for start, end in fenced):
            continue  # an example of the format, not a call
        found = _tag_body_calls(match.group(1), offered)
        if not found:
            return None  # a tag that is not a valid call: leave the whole answer as text
        calls.extend(found)
        kept.append(text[position:match.start()])
        position = match.end()
    if not calls:
        return None
    kept.append(text[position:])
    return TextCalls(tuple(calls), "".join(kept).strip())


def _tag_body_calls(body: str, offered: dict[str, ToolSchema]) -> tuple[TextCall, ...]:
    body = body.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(3).strip()
    try:
        value = json.loads(body)
    except ValueError:
        return ()
    return _calls_in(value, offered)


def _fenced_spans(text: str) -> list[tuple[int, int]]:
    """Where fenced code blocks are (an unclosed fence runs to the end)."""
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for match in _FENCE_LINE.finditer(text):
        fence = match.group(1)
        if opened is None:
            opened = (match.start(), fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]):
            spans.append((opened[0], match.end()))
            opened = None
    if opened is not None:
        spans.append((opened[0], len(text)))
    return spans


def _calls_in(value: Any, offered: dict[str, ToolSchema]) -> tuple[TextCall, ...]:
    """Every call in a decoded object or list; () unless all of them are valid."""
    entries = value if isinstance(value, list) else [value]
    if not entries:
        return ()
    calls = []
    for entry in entries:
        call = _call(entry, offered)
        if call is None:
            return ()
        calls.append(call)
    return tuple(calls)


def _call(entry: Any, offered: dict[str, ToolSchema]) -> TextCall | None:
    if not isinstance(entry, dict):
        return None
    if isinstance(entry.get("function"), dict):  # {"type": "function", "function": {...}}
        entry = entry["function"]
    name = entry.get("name", entry.get("tool"))
    keys = set(entry) - {"name", "tool", "type", "id"}
    arguments: Any = {}
    for field in ("arguments", "parameters", "args", "input"):
        if field in entry:
            arguments = entry[field]
            keys.discard(field)
            break
    if keys or not isinstance(name, str) or name not in offered:
        return None
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return None
    if not isinstance(arguments, dict) or not schema_accepts(offered[name].parameters,
                                                             arguments):
        return None
    return TextCall(name, arguments)


_CALL_START = re.compile(r'\{\s*"(?:name|tool|function)"\s*:')


def call_key(name: str, arguments: dict[str, Any]) -> str:
    """A call's identity, however its JSON was spaced or ordered."""
    return json.dumps([name, arguments], sort_keys=True, ensure_ascii=False)


def quoted_calls(texts: Iterable[str], tools: Sequence[ToolSchema]) -> frozenset[str]:
    """The keys of the calls written anywhere in `texts` (files, tool results, the user's
    words: what the model was shown). A model that repeats one of them is quoting what it
    read, not calling: a file or a tool's output must never be able to make a call."""
    offered = {tool.name: tool for tool in tools}
    decoder = json.JSONDecoder()
    keys: set[str] = set()
    for text in texts:
        for match in _CALL_START.finditer(text):
            try:
                value, _ = decoder.raw_decode(text, match.start())
            except ValueError:
                continue
            call = _call(value, offered)
            if call is not None:
                keys.add(call_key(call.name, call.arguments))
    return frozenset(keys)


def schema_accepts(schema: dict[str, Any], value: Any) -> bool:
    """Whether `value` fits the JSON schema as far as tool schemas use it: type, required,
    properties, additionalProperties, enum, minimum, items."""
    expected = schema.get("type")
    if isinstance(expected, str):
        kinds = _JSON_TYPES.get(expected)
        if kinds is not None and (not isinstance(value, kinds)
                                  or (isinstance(value, bool) and expected != "boolean")):
            return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    minimum = schema.get("minimum")
    if isinstance(minimum, int | float) and isinstance(value, int | float) and value < minimum:
        return False
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties") or {}
        if any(key not in value for key in schema.get("required") or ()):
            return False
        for key, item in value.items():
            if key in properties:
                if not schema_accepts(properties[key], item):
                    return False
            elif schema.get("additionalProperties") is False:
                return False
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return all(schema_accepts(schema["items"], item) for item in value)
    return True


def render_call(name: str, arguments: dict[str, Any]) -> str:
    """A call in the text form a model is taught (and its earlier calls are shown in)."""
    payload = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"{OPEN_TAG}\n{payload}\n{CLOSE_TAG}"


def render_json_call(name: str, arguments: dict[str, Any]) -> str:
    """A call in `json` mode's form: the bare object the answer schema allows."""
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def answer_schema(tools: Sequence[ToolSchema]) -> dict[str, Any]:
    """The JSON schema a `json`-mode answer is held to: one call of an offered tool with
    arguments its schema accepts, or a reply in plain words."""
    choices: list[dict[str, Any]] = [
        {"type": "object", "additionalProperties": False, "required": ["name", "arguments"],
         "properties": {"name": {"const": tool.name}, "arguments": tool.parameters}}
        for tool in tools
    ]
    choices.append({"type": "object", "additionalProperties": False,
                    "required": [ANSWER_FIELD],
                    "properties": {ANSWER_FIELD: {"type": "string"}}})
    return {"anyOf": choices}


def json_answer_text(text: str) -> str | None:
    """The reply in a `json`-mode answer that calls no tool (`{"answer": "..."}`), if so."""
    body = text.strip()
    if not body.startswith("{"):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    reply = value.get(ANSWER_FIELD) if isinstance(value, dict) and len(value) == 1 else None
    return reply if isinstance(reply, str) else None


def tool_rules(json_answers: bool = False) -> str:
    """How to call tools in text (`<tool_call>` tags), or in `json` mode's answers: the
    part of the teaching prompt that does not depend on the tools."""
    if json_answers:
        lines = [
            "# Tools",
            "Every answer you give is one JSON object. You act only through tools: a reply "
            "changes no file and runs nothing, so to change a file call edit_file or "
            "write_file. To call a tool, answer with:",
            render_json_call("TOOL_NAME", {"ARGUMENT": "VALUE"}),
            "The result comes back in a <tool_response> message; then call the next tool or "
            "reply. Only when the task is done, or you need nothing more, reply to the user "
            "with:",
            json.dumps({ANSWER_FIELD: "your reply"}),
        ]
    else:
        lines = [
            "# Tools",
            "You can call tools. To call one, answer with only this, and nothing after it:",
            render_call("TOOL_NAME", {"ARGUMENT": "VALUE"}),
            "Use several <tool_call> blocks to make several calls. The result comes back in "
            "a <tool_response> message. Do not describe a call instead of making it. When you "
            "need no tool, answer in plain text.",
        ]
    return "\n".join(lines)


def tool_list(tools: Sequence[ToolSchema]) -> str:
    """The offered tools written out for a model that gets no native `tools` (the wire form
    of the request's tools in `text` and `json` mode)."""
    lines = ["Available tools (JSON schema of the arguments):"]
    lines.extend(f"- {tool.name}: {tool.description}\n  arguments: "
                 f"{json.dumps(tool.parameters, ensure_ascii=False, sort_keys=True)}"
                 for tool in tools)
    return "\n".join(lines)


def text_tools_prompt(tools: Sequence[ToolSchema], json_answers: bool = False) -> str:
    """The whole system-prompt section that teaches a model with no native tool calling to
    call tools: the rules and the tools."""
    return f"{tool_rules(json_answers)}\n\n{tool_list(tools)}"
