"""The provider-neutral chat request: what the engine assembles and every provider sends.

A leaf module (imports only pydantic) so that the engine and the providers can share it
without depending on each other.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["user", "assistant", "tool"]


class ToolCall(BaseModel):
    """A tool call the model made: its id, the tool's name and the decoded arguments."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Message(BaseModel):
    """One message of the conversation as sent to a model."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    """Assistant messages only: the calls the model made in this message."""
    tool_call_id: str | None = None
    """Tool messages only: the call this message answers."""
    name: str | None = None
    """Tool messages only: the tool's name."""
    is_error: bool = False
    """Tool messages only: the tool failed or was refused."""


class ToolSchema(BaseModel):
    """A tool the model may call, with a JSON-schema for its arguments."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]


class CacheBreaks(BaseModel):
    """The stable boundaries of a request, where a provider that caches on request
    (Anthropic's `cache_control`) puts its breakpoints: everything before one is expected
    to be sent again byte for byte next time. At most four in all."""

    model_config = ConfigDict(frozen=True)

    system: tuple[int, ...] = ()
    """Lengths of `system` prefixes that end a stable block (the system prompt, memory)."""
    messages: tuple[int, ...] = ()
    """Indices of messages whose end is a stable boundary (earlier turns, the newest)."""


class ChatRequest(BaseModel):
    """The exact, provider-neutral request: system prompt, messages and tools, then the
    context that changes from turn to turn (sent after the newest message, so that changing
    it never changes the prefix a provider caches)."""

    model_config = ConfigDict(frozen=True)

    model: str = ""
    system: str = ""
    messages: tuple[Message, ...] = ()
    tools: tuple[ToolSchema, ...] = ()
    max_tokens: int = 8192
    temperature: float | None = None
    context: str = ""
    """Sent after the newest message: the running summary, session notes, retrieved and
    pinned material."""
    cache: CacheBreaks = Field(default_factory=CacheBreaks)

    def canonical_json(self) -> str:
        """Byte-stable JSON: the same request always serialises to the same text."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"))
