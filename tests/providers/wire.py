"""The three wire protocols side by side, so one fault can be scripted for each of them.

A `Wire` builds loopback replies in its protocol's own shapes (OpenAI chunks, Anthropic
events; Ollama speaks OpenAI's on `/v1`) and says how swetui is pointed at the server.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from tests.providers.helpers import API_KEY
from tests.providers.loopback import Reply, json_reply, sse
from tests.providers.test_anthropic import block_start, block_stop, delta, message_end
from tests.providers.test_anthropic import message_start as anthropic_start
from tests.providers.test_openai import USAGE, chunk

Event = str | float | dict[str, Any] | tuple[str, dict[str, Any]] | asyncio.Event


@dataclass(frozen=True)
class Wire:
    """One protocol: `openai`, `anthropic` or `ollama`."""

    name: str

    def __str__(self) -> str:
        return self.name

    @property
    def model(self) -> str:
        return {"openai": "openai:gpt-test", "anthropic": "anthropic:claude-test",
                "ollama": "ollama:llama-test"}[self.name]

    def env(self, url: str) -> dict[str, str]:
        """The environment that points swetui at a server listening at `url`."""
        if self.name == "openai":
            return {"OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": API_KEY}
        if self.name == "anthropic":
            return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": API_KEY}
        return {"OLLAMA_HOST": url}

    # -- event pieces ----------------------------------------------------------------------

    def opening(self) -> list[Event]:
        if self.name == "anthropic":
            return [anthropic_start(), block_start(0, {"type": "text", "text": ""})]
        return [chunk({"role": "assistant", "content": ""})]

    def text(self, piece: str) -> Event:
        if self.name == "anthropic":
            return delta(0, {"type": "text_delta", "text": piece})
        return chunk({"content": piece})

    def closing(self, stop: str = "stop") -> list[Event]:
        if self.name == "anthropic":
            reason = "tool_use" if stop == "tool_calls" else "end_turn"
            return [block_stop(0), *message_end(reason, 5)]
        return [chunk(finish=stop), USAGE, "data: [DONE]\n\n"]

    def garbage(self) -> Event:
        """A line that is not JSON, as a broken proxy or server sends it."""
        if self.name == "anthropic":
            return "event: content_block_delta\ndata: {\"type\": \"content_blo\n\n"
        return "data: {\"choices\": [{\"delta\": {\"content\": \"oops\n\n"

    # -- whole replies ---------------------------------------------------------------------

    def answer(self, *pieces: str, **options: Any) -> Reply:
        """A complete streamed answer."""
        return sse(*self.opening(), *(self.text(p) for p in pieces), *self.closing(), **options)

    def stream(self, *events: Event, **options: Any) -> Reply:
        """Exactly these events (the caller decides what is missing)."""
        return sse(*events, **options)

    def tool_call(self, call_id: str, name: str, raw_arguments: str) -> Reply:
        """An answer that is one tool call with these (possibly broken) JSON arguments."""
        if self.name == "anthropic":
            return sse(anthropic_start(),
                       block_start(0, {"type": "tool_use", "id": call_id, "name": name,
                                       "input": {}}),
                       delta(0, {"type": "input_json_delta", "partial_json": raw_arguments}),
                       block_stop(0), *message_end("tool_use", 7))
        fragment = {"index": 0, "id": call_id, "type": "function",
                    "function": {"name": name, "arguments": raw_arguments}}
        return sse(chunk({"role": "assistant", "content": None}),
                   chunk({"tool_calls": [fragment]}), chunk(finish="tool_calls"), USAGE,
                   "data: [DONE]\n\n")

    def error(self, status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
        """An HTTP error answer in the protocol's error shape."""
        if self.name == "anthropic":
            kind = {401: "authentication_error", 429: "rate_limit_error",
                    529: "overloaded_error"}.get(status, "api_error")
            body: Any = {"type": "error", "error": {"type": kind, "message": message}}
        elif self.name == "ollama":
            body = {"error": message}
        else:
            body = {"error": {"message": message, "type": "server_error"}}
        return json_reply(status, body, headers)


WIRES = [Wire("openai"), Wire("anthropic"), Wire("ollama")]
