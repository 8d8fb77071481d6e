"""The model client compaction summaries come from: `compaction_model` when the settings
name one (a provider opened for the request), else the working model."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from swetui.config import Settings
from swetui.messages import ChatRequest, Message
from swetui.providers.base import Provider
from swetui.providers.events import StreamError, TextDelta
from swetui.providers.registry import create_provider


class Summarizer:
    """`await summarizer(system, text)`: one summarisation request, its whole answer."""

    def __init__(self, settings: Settings, env: Mapping[str, str],
                 working: Callable[[], tuple[str, Provider]]) -> None:
        self.settings = settings
        self.env = env
        self.working = working
        """The session's current model and its provider (they change with /model)."""

    async def __call__(self, system: str, text: str) -> str:
        model, working = self.working()
        spec = self.settings.compaction_model
        provider = create_provider(spec, self.env, timeout=self.settings.request_timeout) \
            if spec and spec != model else working
        request = ChatRequest(model=spec or model, system=system,
                              messages=(Message(role="user", content=text),), max_tokens=2048)
        parts: list[str] = []
        try:
            async for event in provider.stream(request):
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                elif isinstance(event, StreamError):
                    raise RuntimeError(event.message)
        finally:
            if provider is not working:
                await provider.aclose()
        return "".join(parts)
