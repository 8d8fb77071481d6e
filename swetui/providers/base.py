"""The one interface every model back end implements."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from swetui.messages import ChatRequest
from swetui.providers.events import ProviderEvent
from swetui.providers.text_calls import ToolCallMode


@runtime_checkable
class Provider(Protocol):
    """A model back end: streams normalised events for one request.

    A stream always ends with exactly one `Done` or one `StreamError` (after which nothing
    follows). Errors are events, never exceptions, except `asyncio.CancelledError`.
    """

    name: str
    """`provider:model`, as the user names it (e.g. `openai:gpt-4o`, `offline`)."""

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class TextToolCalls(Protocol):
    """A provider that can read tool calls written as text (OpenAI-compatible servers)."""

    tool_calls: ToolCallMode
    teaches_tools: bool
    """Whether it adds the prompt that teaches the tools itself (`text` and `json` mode);
    a session turns this off and sends that prompt as a context item."""
