"""Normalised streaming events every provider emits, whatever its wire protocol.

These are what `Provider.stream` yields to the turn loop; they are never published on the
bus (the turn loop turns them into `swetui.agent.turn_events`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from swetui.providers.usage import Usage as Usage


class ReasoningDelta(BaseModel):
    """A piece of the model's visible reasoning (thinking)."""

    kind: Literal["reasoning"] = "reasoning"
    text: str


class TextDelta(BaseModel):
    """A piece of the answer text."""

    kind: Literal["text"] = "text"
    text: str


class ToolCallStart(BaseModel):
    """The model started a tool call; arguments follow as deltas."""

    kind: Literal["tool_start"] = "tool_start"
    index: int
    id: str
    name: str


class ToolCallDelta(BaseModel):
    """A fragment of a tool call's JSON arguments."""

    kind: Literal["tool_delta"] = "tool_delta"
    index: int
    id: str
    arguments_delta: str


class ToolCallEnd(BaseModel):
    """A tool call is complete. `arguments` is None when the JSON could not be decoded;
    `error` then says why, and `raw_arguments` keeps what arrived."""

    kind: Literal["tool_end"] = "tool_end"
    index: int
    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    error: str | None = None


class Done(BaseModel):
    """The answer finished normally (`stop_reason`: `stop`, `tool_calls`, `length`, ...)."""

    kind: Literal["done"] = "done"
    stop_reason: str = "stop"


class StreamError(BaseModel):
    """The stream failed; it is the last event. `message` is one line fit to show a user.
    When it follows some deltas (a connection dropped mid-answer) the consumer keeps what
    arrived and marks the answer interrupted."""

    kind: Literal["error"] = "error"
    message: str
    retryable: bool = False
    status: int | None = None


ProviderEvent = (
    ReasoningDelta | TextDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | Usage | Done
    | StreamError
)
