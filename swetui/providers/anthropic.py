"""The Anthropic Messages protocol: content blocks, thinking, `input_json_delta`."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from httpx_sse import ServerSentEvent

from swetui.messages import ChatRequest, Message
from swetui.providers.events import (
    Done,
    ProviderEvent,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from swetui.providers.sse import SseProvider
from swetui.providers.toolcalls import decode_tool_arguments
from swetui.providers.usage import anthropic_usage

log = logging.getLogger(__name__)

DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"

_STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
                 "max_tokens": "length"}
# Error types worth another attempt when they arrive before any content.
_RETRYABLE_ERRORS = {"overloaded_error", "api_error", "rate_limit_error"}


CACHE = {"type": "ephemeral"}
"""Anthropic's `cache_control` value: the prefix up to here is cached (5 minutes)."""


def anthropic_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The conversation as Messages-API turns.

    Tool results become `tool_result` blocks of a user turn; consecutive turns of one role
    (several tool results, or results followed by user text) are merged into one turn, as
    the API expects alternating roles. The request's changing context comes last, as a text
    block of the final user turn, after the cache breakpoint of the newest message.
    """
    turns: list[dict[str, Any]] = []
    marks = set(request.cache.messages)
    for index, message in enumerate(request.messages):
        role, blocks = _blocks(message)
        if not blocks:
            continue  # the API refuses empty content
        if index in marks:
            blocks[-1]["cache_control"] = CACHE
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    if request.context:
        block = {"type": "text", "text": request.context}
        if turns and turns[-1]["role"] == "user":
            turns[-1]["content"].append(block)
        else:
            turns.append({"role": "user", "content": [block]})
    if request.cache.messages:
        return turns  # blocks throughout: a turn is sent the same way whether marked or not
    for turn in turns:
        content = turn["content"]
        if len(content) == 1 and content[0]["type"] == "text":
            turn["content"] = content[0]["text"]
    return turns


def anthropic_system(request: ChatRequest) -> list[dict[str, Any]]:
    """The system prompt as text blocks cut at its stable boundaries, each cached."""
    blocks: list[dict[str, Any]] = []
    start = 0
    for end in sorted(set(request.cache.system)):
        if start < end <= len(request.system):
            blocks.append({"type": "text", "text": request.system[start:end].strip("\n"),
                           "cache_control": CACHE})
            start = end
    rest = request.system[start:].strip("\n")
    if rest:
        blocks.append({"type": "text", "text": rest})
    return blocks


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if message.role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id or "",
                                 "content": message.content}
        if message.is_error:
            block["is_error"] = True
        return "user", [block]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    if message.role == "assistant":
        blocks.extend({"type": "tool_use", "id": call.id, "name": call.name,
                       "input": call.arguments} for call in message.tool_calls)
    return message.role, blocks


def anthropic_body(request: ChatRequest, *, model: str,
                   thinking_budget: int | None = None) -> dict[str, Any]:
    """The JSON body of a streaming Messages request."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": anthropic_messages(request),
        "stream": True,
    }
    if request.system:
        body["system"] = anthropic_system(request) if request.cache.system else request.system
    if request.tools:
        body["tools"] = [{"name": tool.name, "description": tool.description,
                          "input_schema": tool.parameters} for tool in request.tools]
        if 0 in request.cache.system and not request.system:
            body["tools"][-1]["cache_control"] = CACHE  # no system: the tools end the block
    if thinking_budget:
        body["thinking"] = {"type": "enabled", "budget_tokens": thinking_budget}
    elif request.temperature is not None:  # the API refuses a temperature with thinking
        body["temperature"] = request.temperature
    return body


@dataclass
class _Block:
    kind: str
    call_index: int = -1
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    initial_input: dict[str, Any] | None = None


class AnthropicStreamParser:
    """Messages-API events → normalised events (one parser per response)."""

    def __init__(self, provider_id: str = "anthropic") -> None:
        self._provider_id = provider_id
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._usage: dict[str, Any] = {}
        self._output_tokens = 0
        self._stop_reason: str | None = None
        self._skipped = 0

    def feed(self, event: ServerSentEvent) -> list[ProviderEvent]:
        """Events for one SSE message."""
        if not event.data.strip():
            return []
        try:
            data = json.loads(event.data)
        except ValueError:
            self._skipped += 1
            log.warning("%s: skipped a malformed event: %r", self._provider_id, event.data[:200])
            return []
        if not isinstance(data, dict):
            self._skipped += 1
            return []
        handlers = {
            "message_start": self._on_message_start,
            "content_block_start": self._on_content_block_start,
            "content_block_delta": self._on_content_block_delta,
            "content_block_stop": self._on_content_block_stop,
            "message_delta": self._on_message_delta,
            "message_stop": self._on_message_stop,
            "error": self._on_error,
        }
        handler = handlers.get(data.get("type") or event.event)
        return handler(data) if handler else []  # ping and future event types

    def _on_message_start(self, data: dict[str, Any]) -> list[ProviderEvent]:
        message = data.get("message")
        usage = message.get("usage") if isinstance(message, dict) else None
        if isinstance(usage, dict):
            self._usage = dict(usage)
            self._output_tokens = int(usage.get("output_tokens") or 0)
        return []

    def _on_content_block_start(self, data: dict[str, Any]) -> list[ProviderEvent]:
        index = int(data.get("index", len(self._blocks)))
        block = data.get("content_block") or {}
        kind = block.get("type", "")
        state = self._blocks[index] = _Block(kind=kind)
        if kind == "text" and block.get("text"):
            return [TextDelta(text=block["text"])]
        if kind == "thinking" and block.get("thinking"):
            return [ReasoningDelta(text=block["thinking"])]
        if kind == "tool_use":
            state.call_index = self._calls
            self._calls += 1
            state.id = block.get("id") or f"toolu_{state.call_index}"
            state.name = block.get("name", "")
            initial = block.get("input")
            state.initial_input = initial if isinstance(initial, dict) and initial else None
            return [ToolCallStart(index=state.call_index, id=state.id, name=state.name)]
        return []

    def _on_content_block_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        delta = data.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            return [TextDelta(text=delta["text"])]
        if kind == "thinking_delta" and delta.get("thinking"):
            return [ReasoningDelta(text=delta["thinking"])]
        if kind == "input_json_delta":
            state = self._blocks.get(int(data.get("index", -1)))
            piece = delta.get("partial_json") or ""
            if state is not None and state.kind == "tool_use" and piece:
                state.parts.append(piece)
                return [ToolCallDelta(index=state.call_index, id=state.id,
                                      arguments_delta=piece)]
        return []  # signature_delta and unknown deltas carry nothing to show

    def _on_content_block_stop(self, data: dict[str, Any]) -> list[ProviderEvent]:
        state = self._blocks.get(int(data.get("index", -1)))
        if state is None or state.kind != "tool_use" or state.call_index < 0:
            return []
        return [self._end_call(state)]

    def _end_call(self, state: _Block) -> ToolCallEnd:
        raw = "".join(state.parts)
        if not raw and state.initial_input is not None:
            raw = json.dumps(state.initial_input, ensure_ascii=False)
        arguments, error = decode_tool_arguments(raw)
        state.kind = "ended"
        return ToolCallEnd(index=state.call_index, id=state.id, name=state.name,
                           arguments=arguments, raw_arguments=raw, error=error)

    def _on_message_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        reason = (data.get("delta") or {}).get("stop_reason")
        if reason:
            self._stop_reason = _STOP_REASONS.get(reason, reason)
        usage = data.get("usage")
        if not isinstance(usage, dict):
            return []
        if usage.get("output_tokens") is not None:  # cumulative, not an increment
            self._output_tokens = int(usage["output_tokens"])
        # Newer servers repeat the (final) input and cache counts here; they win.
        self._usage.update({key: value for key, value in usage.items()
                            if key != "output_tokens" and value is not None})
        return []

    def _on_message_stop(self, data: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = [self._end_call(block) for block in self._open_calls()]
        if self._usage or self._output_tokens:
            events.append(anthropic_usage(self._usage, output_tokens=self._output_tokens))
        events.append(Done(stop_reason=self._stop_reason or "stop"))
        return events

    def _on_error(self, data: dict[str, Any]) -> list[ProviderEvent]:
        error = data.get("error") or {}
        kind = error.get("type") or "error"
        message = " ".join(str(error.get("message") or kind).split())
        return [StreamError(message=f"{self._provider_id}: {kind}: {message}",
                            retryable=kind in _RETRYABLE_ERRORS)]

    def _open_calls(self) -> list[_Block]:
        return [block for block in self._blocks.values() if block.kind == "tool_use"]

    def finish(self) -> list[ProviderEvent]:
        """The body ended without `message_stop`: the answer is incomplete."""
        message = (f"{self._provider_id}: the answer was interrupted: the stream ended before "
                   "the model finished")
        if self._skipped:
            message += f" ({self._skipped} malformed event(s) skipped)"
        # Unfinished tool calls are not closed: their arguments may be cut short.
        return [StreamError(message=message, retryable=not self._skipped)]


class AnthropicProvider(SseProvider):
    """`anthropic:MODEL`: the Messages API streamed over SSE from `base_url`."""

    provider_id = "anthropic"

    def __init__(self, model: str, *, base_url: str = DEFAULT_ANTHROPIC_BASE_URL,
                 api_key: str | None = None, thinking_budget: int | None = None,
                 **options: Any) -> None:
        super().__init__(model, base_url=base_url, api_key=api_key, **options)
        self.thinking_budget = thinking_budget

    def _url(self) -> str:
        base = self.base_url
        # Accept both `https://api.anthropic.com` and `.../v1` as the base URL.
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return anthropic_body(request, model=self.model, thinking_budget=self.thinking_budget)

    def _parser(self) -> AnthropicStreamParser:
        return AnthropicStreamParser(self.provider_id)
