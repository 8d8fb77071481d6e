"""Turning tool calls written as text into tool-call events, while the answer streams.

Text that may be a call is held back instead of shown: an answer that starts like JSON, a
JSON fence or a `<tool_call>` tag is held until it ends, and prose is shown up to a
`<tool_call>` tag (outside a code block). When the answer ends, `find_text_calls` decides:
the calls become `ToolCallStart`/`ToolCallEnd` events and their text is dropped, or the
held text is shown after all. So the raw call never reaches the transcript.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence

from swetui.messages import ToolSchema
from swetui.providers.events import (
    Done,
    ProviderEvent,
    StreamError,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from swetui.providers.text_calls import (
    OPEN_TAG,
    TextCall,
    call_key,
    find_text_calls,
    json_answer_text,
    quoted_calls,
)

_STARTS = ("```", "~~~", OPEN_TAG)
_CALL_FENCES = ("", "json", "jsonc", "tool_call", "tool_code")
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)


def _is_prefix(text: str, of: tuple[str, ...]) -> bool:
    return any(word.startswith(text) for word in of)


class TextCallFilter:
    """Holds back text that may be a call; decides at the end (one per answer)."""

    def __init__(self, tools: Sequence[ToolSchema], *, json_answers: bool = False,
                 shown_to_model: Sequence[str] = ()) -> None:
        self.tools = tuple(tools)
        self.shown_to_model = tuple(shown_to_model)
        """What the model was given to read (files, tool results, the user's words): a call
        copied from it is a quote, never run."""
        self.json_answers = json_answers
        """`json` mode: an answer that calls no tool is `{"answer": "..."}`; its reply is
        shown, not the JSON."""
        self.shown = ""
        self.held = ""
        self.holding = False
        """Everything from here to the end is held (a call may be under way)."""
        self.prose = False
        """The answer is known not to be a whole-answer call."""
        self.native = False

    def text(self, delta: str) -> str:
        """What of `delta` (and of what was held) may be shown now."""
        self.held += delta
        if self.holding or self.native:
            return self._release() if self.native else ""
        if not self.prose and not self._decide_start():
            return ""
        return self._release_prose()

    def _decide_start(self) -> bool:
        """True once the answer is known to be prose; holds when it may be a call."""
        start = self.held.lstrip()
        if not start:
            return False
        if start[0] in "{[" or start.startswith(OPEN_TAG):
            self.holding = True
            return False
        if start.startswith(("```", "~~~")):
            first_line, newline, _ = start.partition("\n")
            if not newline:
                return False
            if first_line.strip("`~ \t").lower() in _CALL_FENCES:
                self.holding = True
                return False
        elif _is_prefix(start, _STARTS):
            return False
        self.prose = True
        return True

    def _release_prose(self) -> str:
        tag = self.held.find(OPEN_TAG)
        if tag >= 0 and not self._in_fence(self.shown + self.held[:tag]):
            out, self.held, self.holding = self.held[:tag], self.held[tag:], True
            self.shown += out
            return out
        keep = 0
        for size in range(min(len(OPEN_TAG) - 1, len(self.held)), 0, -1):
            if OPEN_TAG.startswith(self.held[-size:]):
                keep = size
                break
        out = self.held[: len(self.held) - keep]
        self.held = self.held[len(out):]
        self.shown += out
        return out

    @staticmethod
    def _in_fence(text: str) -> bool:
        return len(_FENCE_LINE.findall(text)) % 2 == 1

    def _release(self) -> str:
        out, self.held = self.held, ""
        self.shown += out
        return out

    def finish(self, first_index: int) -> list[ProviderEvent]:
        """The answer ended: the calls found (with what text is left), or the held text."""
        if self.native or not self.held:
            return self._text_events(self._release())
        found = find_text_calls(self.shown + self.held, self.tools)
        if found is not None and self._quotes(found.calls):
            found = None
        if found is None:
            reply = json_answer_text(self.shown + self.held) if self.json_answers else None
            if reply is not None and not self.shown:
                self.held = ""
                return self._text_events(reply)
            return self._text_events(self._release())
        residue = found.text
        if self.shown:  # the prose before the tags is on screen already: the rest of it
            prefix = self.shown.lstrip()
            residue = found.text[len(prefix):] if found.text.startswith(prefix) else ""
        self.held = ""
        events: list[ProviderEvent] = list(self._text_events(residue))
        for offset, call in enumerate(found.calls):
            index = first_index + offset
            call_id = f"call_{uuid.uuid4().hex[:12]}"
            events.append(ToolCallStart(index=index, id=call_id, name=call.name))
            # The arguments as written count as the model's output (its token estimate).
            events.append(ToolCallEnd(index=index, id=call_id, name=call.name,
                                      arguments=call.arguments,
                                      raw_arguments=json.dumps(call.arguments,
                                                               ensure_ascii=False)))
        return events

    def _quotes(self, calls: Sequence[TextCall]) -> bool:
        quoted = quoted_calls(self.shown_to_model, self.tools)
        return any(call_key(call.name, call.arguments) in quoted for call in calls)

    @staticmethod
    def _text_events(text: str) -> list[ProviderEvent]:
        return [TextDelta(text=text)] if text else []


async def with_text_calls(events: AsyncIterator[ProviderEvent], tools: Sequence[ToolSchema],
                          *, json_answers: bool = False, shown_to_model: Sequence[str] = ()
                          ) -> AsyncGenerator[ProviderEvent, None]:
    """`events` with tool calls written as text turned into tool-call events (and, with
    `json_answers`, `{"answer": ...}` into its reply); a call copied from
    `shown_to_model` is left as text."""
    held = TextCallFilter(tools, json_answers=json_answers, shown_to_model=shown_to_model)
    calls = 0
    async for event in events:
        if isinstance(event, TextDelta):
            shown = held.text(event.text)
            if shown:
                yield TextDelta(text=shown)
            continue
        if isinstance(event, ToolCallStart | ToolCallDelta | ToolCallEnd):
            held.native = True
            calls = max(calls, event.index + 1)
        elif isinstance(event, Done):
            found = held.finish(calls)
            for out in found:
                yield out
            if any(isinstance(out, ToolCallEnd) for out in found):
                event = Done(stop_reason="tool_calls")
        elif isinstance(event, StreamError):
            for out in TextCallFilter._text_events(held._release()):
                yield out
        yield event
