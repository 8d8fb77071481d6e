"""The OpenAI chat completions protocol (also vLLM, llama.cpp, LM Studio, OpenRouter, ...)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from httpx_sse import ServerSentEvent

from swetui.messages import ChatRequest, Message
from swetui.providers.errors import error_detail
from swetui.providers.events import (
    Done,
    ProviderEvent,
    ReasoningDelta,
    StreamError,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from swetui.providers.sse import SseProvider
from swetui.providers.text_call_stream import with_text_calls
from swetui.providers.text_calls import (
    ToolCallMode,
    answer_schema,
    render_call,
    render_json_call,
    tool_list,
    tool_rules,
)
from swetui.providers.think_tags import ThinkTags
from swetui.providers.toolcalls import decode_tool_arguments
from swetui.providers.usage import Usage, openai_usage

log = logging.getLogger(__name__)

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

# OpenAI's own "function_call" is the legacy name of "tool_calls".
_STOP_REASONS = {"function_call": "tool_calls", "eos": "stop", "end_turn": "stop"}


def openai_messages(request: ChatRequest, *, text_tools: bool = False,
                    json_answers: bool = False, teach: bool = True) -> list[dict[str, Any]]:
    """The request's conversation in chat-completions form, system message first. With
    `text_tools` the tools are taught in the system message and earlier calls and results
    are written as text, for servers that know no tool calls; `json_answers` teaches (and
    writes earlier calls in) `json` mode's form instead of `<tool_call>` tags. Without
    `teach` the request's own system text holds the rules (a session's context item) and
    only the list of tools is added, as the wire form of the request's tools."""
    wire: list[dict[str, Any]] = []
    system = request.system
    if text_tools and request.tools:
        parts = [system, tool_rules(json_answers) if teach else "", tool_list(request.tools)]
        system = "\n\n".join(part for part in parts if part)
    if system:
        wire.append({"role": "system", "content": system})
    for message in request.messages:
        out = (_text_message(message, json_answers) if text_tools
               else _wire_message(message))
        if text_tools and wire and wire[-1]["role"] == out["role"] == "user":
            wire[-1]["content"] += "\n\n" + out["content"]  # templates want turns to alternate
        else:
            wire.append(out)
    if request.context:
        # After the newest message: the prefix these servers cache stays as it was sent.
        if text_tools and wire and wire[-1]["role"] == "user":
            wire[-1]["content"] += "\n\n" + request.context
        else:
            wire.append({"role": "user", "content": request.context})
    return wire


def _text_message(message: Message, json_answers: bool = False) -> dict[str, Any]:
    if message.role == "assistant":
        parts = [message.content] if message.content else []
        render = render_json_call if json_answers else render_call
        parts.extend(render(call.name, call.arguments) for call in message.tool_calls)
        return {"role": "assistant", "content": "\n".join(parts)}
    if message.role == "tool":
        status = " error" if message.is_error else ""
        return {"role": "user", "content": f"<tool_response name=\"{message.name or ''}\"{status}>"
                                           f"\n{message.content}\n</tool_response>"}
    return {"role": "user", "content": message.content}


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "assistant":
        out: dict[str, Any] = {"role": "assistant"}
        if message.tool_calls:
            # "" rather than null: llama.cpp's server answers null content with HTTP 500.
            out["content"] = message.content
            out["tool_calls"] = [
                {"id": call.id, "type": "function",
                 "function": {"name": call.name,
                              "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
                for call in message.tool_calls
            ]
        else:
            out["content"] = message.content
        return out
    if message.role == "tool":
        # The protocol has no error flag: say it in the content so the model notices.
        content = message.content
        if message.is_error and not content.lower().startswith("error"):
            content = f"Error: {content}"
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": content}
    return {"role": "user", "content": message.content}


def openai_body(request: ChatRequest, *, model: str, max_tokens_field: str = "max_tokens",
                text_tools: bool = False, json_answers: bool = False,
                teach: bool = True) -> dict[str, Any]:
    """The JSON body of a streaming chat-completions request. With `json_answers` (and
    tools) the answer is held to `answer_schema` through `response_format` (the
    `json_object`-with-`schema` form that llama.cpp's server and llama-cpp-python's both
    turn into a grammar)."""
    text_tools = text_tools or json_answers
    body: dict[str, Any] = {
        "model": model,
        "messages": openai_messages(request, text_tools=text_tools,
                                    json_answers=json_answers, teach=teach),
        "stream": True,
        "stream_options": {"include_usage": True},
        max_tokens_field: request.max_tokens,
    }
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.tools and json_answers:
        body["response_format"] = {"type": "json_object",
                                   "schema": answer_schema(request.tools)}
    if request.tools and not text_tools:
        body["tools"] = [
            {"type": "function",
             "function": {"name": tool.name, "description": tool.description,
                          "parameters": tool.parameters}}
            for tool in request.tools
        ]
    return body


@dataclass
class _PendingCall:
    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""
    started: bool = False
    ended: bool = False


class OpenAIStreamParser:
    """Chat-completion chunks → normalised events (one parser per response)."""

    def __init__(self, provider_id: str = "openai") -> None:
        self._provider_id = provider_id
        self._calls: dict[int, _PendingCall] = {}
        self._finish_reason: str | None = None
        self._usage: Usage | None = None
        self._skipped = 0
        self._last_skip = ""
        self._think = ThinkTags()

    def feed(self, event: ServerSentEvent) -> list[ProviderEvent]:
        """Events for one `data:` message."""
        data = event.data.strip()
        if not data:
            return []
        if data == "[DONE]":
            return self._end()
        try:
            chunk = json.loads(data)
        except ValueError:
            # One garbled line must not lose the answer: skip it, remember it for the
            # message if the stream then ends without a complete answer.
            self._skipped += 1
            self._last_skip = data[:60]
            log.warning("%s: skipped a malformed event: %r", self._provider_id, data[:200])
            return []
        if not isinstance(chunk, dict):
            self._skipped += 1
            return []
        if "error" in chunk and not chunk.get("choices"):
            detail = error_detail(json.dumps(chunk)) or "unknown error"
            return [StreamError(message=f"{self._provider_id}: {detail}")]
        events: list[ProviderEvent] = []
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = openai_usage(usage)
        for choice in chunk.get("choices") or ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                events.extend(self._choice(choice))
        return events

    def _choice(self, choice: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        delta = choice.get("delta") or {}
        for field in ("reasoning_content", "reasoning"):
            text = delta.get(field)
            if isinstance(text, str) and text:
                events.append(ReasoningDelta(text=text))
        content = delta.get("content")
        if isinstance(content, str) and content:
            events.extend(self._think.feed(content))
        for position, fragment in enumerate(delta.get("tool_calls") or ()):
            if isinstance(fragment, dict):
                events.extend(self._tool_fragment(fragment, position))
        reason = choice.get("finish_reason")
        if reason:
            events.extend(self._think.finish())
            self._finish_reason = _STOP_REASONS.get(reason, reason)
            events.extend(self._end_calls())
        return events

    def _tool_fragment(self, fragment: dict[str, Any], position: int) -> list[ProviderEvent]:
        index = fragment.get("index", position)
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = _PendingCall(index=index)
        function = fragment.get("function") or {}
        call.id = call.id or fragment.get("id") or ""
        call.name = call.name or function.get("name") or ""
        pieces = function.get("arguments")
        if isinstance(pieces, dict):  # a few servers send decoded arguments
            pieces = json.dumps(pieces, ensure_ascii=False)
        pieces = pieces if isinstance(pieces, str) else ""
        events: list[ProviderEvent] = []
        if not call.started and call.name:
            call.started = True
            call.id = call.id or f"call_{index}"
            events.append(ToolCallStart(index=index, id=call.id, name=call.name))
            if call.arguments:  # fragments that arrived before the name
                events.append(ToolCallDelta(index=index, id=call.id,
                                            arguments_delta=call.arguments))
        call.arguments += pieces
        if call.started and pieces:
            events.append(ToolCallDelta(index=index, id=call.id, arguments_delta=pieces))
        return events

    def _end_calls(self) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for index in sorted(self._calls):
            call = self._calls[index]
            if call.ended:
                continue
            call.ended = True
            if not call.started:
                call.id = call.id or f"call_{index}"
                events.append(ToolCallStart(index=index, id=call.id, name=call.name))
            arguments, error = decode_tool_arguments(call.arguments)
            if not call.name:
                error = error or "the tool call has no tool name"
            events.append(ToolCallEnd(index=index, id=call.id, name=call.name,
                                      arguments=arguments, raw_arguments=call.arguments,
                                      error=error))
        return events

    def _end(self) -> list[ProviderEvent]:
        events: list[ProviderEvent] = [*self._think.finish(), *self._end_calls()]
        if self._finish_reason is None and not self._calls and self._usage is None \
                and self._skipped:
            return [*events, self._incomplete()]
        if self._usage is not None:
            events.append(self._usage)
        reason = self._finish_reason or ("tool_calls" if self._calls else "stop")
        events.append(Done(stop_reason=reason))
        return events

    def finish(self) -> list[ProviderEvent]:
        """The body ended without `[DONE]`: complete if a finish reason came, else an error."""
        if self._finish_reason is not None:
            return self._end()
        return [*self._think.finish(), *self._end_calls(), self._incomplete()]

    def _incomplete(self) -> StreamError:
        message = f"{self._provider_id}: the answer was interrupted: the stream ended before " \
                  "the model finished"
        if self._skipped:
            message += f" ({self._skipped} malformed event(s) skipped, last: {self._last_skip!r})"
        # Garbage from the server would come back the same on a retry; a cut stream may not.
        return StreamError(message=message, retryable=not self._skipped)


class OpenAIProvider(SseProvider):
    """`openai:MODEL`: chat completions streamed over SSE from `base_url`."""

    provider_id = "openai"

    def __init__(self, model: str, *, base_url: str = DEFAULT_OPENAI_BASE_URL,
                 api_key: str | None = None, tool_calls: ToolCallMode = "auto",
                 temperature: float | None = None, **options: Any) -> None:
        super().__init__(model, base_url=base_url, api_key=api_key, **options)
        self.tool_calls: ToolCallMode = tool_calls
        self.temperature = temperature
        """Sent when the request sets none (the model's setting)."""
        self.teaches_tools = True
        """In `text` and `json` mode, add the prompt that teaches the tools to the system
        message; a session turns this off and sends that prompt as a context item."""

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """The answer's events; in `text` and `auto` mode, calls written as text become
        tool-call events (their text is not shown)."""
        async with aclosing(super().stream(request)) as raw:
            if self.tool_calls == "native" or not request.tools:
                async for event in raw:
                    yield event
                return
            read = [request.system, *(message.content for message in request.messages
                                      if message.role != "assistant")]
            async with aclosing(with_text_calls(raw, request.tools,
                                                json_answers=self.tool_calls == "json",
                                                shown_to_model=read)) as events:
                async for event in events:
                    yield event

    @property
    def max_tokens_field(self) -> str:
        """OpenAI's own API wants `max_completion_tokens` (its reasoning models refuse
        `max_tokens`); compatible servers mostly know only `max_tokens`."""
        return "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"

    def _url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def auth_headers(self) -> dict[str, str]:
        """What authenticates a request to this server (its other endpoints too)."""
        return {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _headers(self) -> dict[str, str]:
        return {"content-type": "application/json", **self.auth_headers()}

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        if request.temperature is None and self.temperature is not None:
            request = request.model_copy(update={"temperature": self.temperature})
        return openai_body(request, model=self.model, max_tokens_field=self.max_tokens_field,
                           text_tools=self.tool_calls == "text",
                           json_answers=self.tool_calls == "json",
                           teach=self.teaches_tools)

    def _parser(self) -> OpenAIStreamParser:
        return OpenAIStreamParser(self.provider_id)
