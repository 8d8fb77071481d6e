"""Small helpers shared by the provider tests."""

from __future__ import annotations

from swetui.messages import ChatRequest, Message
from swetui.providers.base import Provider
from swetui.providers.events import ProviderEvent

API_KEY = "sk-test-5ecret-k3y-do-not-show"
"""The key every network provider under test uses; it must never appear in a message."""


def ask(text: str = "hello") -> ChatRequest:
    """A one-message request."""
    return ChatRequest(model="m", messages=(Message(role="user", content=text),))


async def collect(provider: Provider, request: ChatRequest | None = None) -> list[ProviderEvent]:
    """Every event of one stream, checking the stream contract on the way."""
    events = [event async for event in provider.stream(request or ask())]
    terminal = [e for e in events if e.kind in ("done", "error")]
    assert len(terminal) == 1 and events[-1] is terminal[0], events
    return events


def text_of(events: list[ProviderEvent], kind: str = "text") -> str:
    """The concatenated text of the text (or reasoning) deltas."""
    return "".join(e.text for e in events if e.kind == kind)  # type: ignore[union-attr]
