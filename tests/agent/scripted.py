"""A provider that plays back scripted answers: a test double for the model, so the turn
loop (the thing under test) runs for real against it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from swetui.messages import ChatRequest
from swetui.providers.events import (
    Done,
    ProviderEvent,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)


def answer(text: str, reasoning: str = "") -> list[ProviderEvent]:
    events: list[ProviderEvent] = []
    if reasoning:
        events.append(ReasoningDelta(text=reasoning))
    words = text.split(" ")
    events += [TextDelta(text=word + (" " if index < len(words) - 1 else ""))
               for index, word in enumerate(words)]
    return [*events, Usage(input_tokens=1000, output_tokens=10), Done()]


def calls(*specs: tuple[str, str, dict[str, Any] | None]) -> list[ProviderEvent]:
    events: list[ProviderEvent] = []
    for index, (call_id, name, arguments) in enumerate(specs):
        events.append(ToolCallStart(index=index, id=call_id, name=name))
        raw = json.dumps(arguments) if arguments is not None else "{bad json"
        events.append(ToolCallEnd(index=index, id=call_id, name=name, arguments=arguments,
                                  raw_arguments=raw,
                                  error=None if arguments is not None else "invalid JSON"))
    return [*events, Done(stop_reason="tool_calls")]


class ScriptedProvider:
    """Answers each request with the next script; records the requests it was sent."""

    name = "scripted"

    def __init__(self, *scripts: list[ProviderEvent], hang: bool = False) -> None:
        self.scripts = list(scripts)
        self.requests: list[ChatRequest] = []
        self.hang = hang

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if not self.scripts:
            yield StreamError(message="script exhausted")
            return
        for event in self.scripts.pop(0):
            yield event
            await asyncio.sleep(0)
        if self.hang:
            await asyncio.Event().wait()

    async def aclose(self) -> None:
        pass
