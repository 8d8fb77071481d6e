"""Model back ends behind one streaming interface.

Imports only `swetui.messages` and this package (never the engine, the agent or Textual), so
providers work and are tested headless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from swetui.lazy import lazy_exports

if TYPE_CHECKING:
    from swetui.providers.anthropic import AnthropicProvider
    from swetui.providers.base import Provider
    from swetui.providers.errors import ProviderConfigError
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
    from swetui.providers.offline import OfflineProvider
    from swetui.providers.ollama import OllamaProvider
    from swetui.providers.openai import OpenAIProvider
    from swetui.providers.registry import DEFAULT_MODELS, create_provider, resolve_model
    from swetui.providers.resilience import CircuitBreaker, RetryPolicy
    from swetui.providers.usage import Usage

_HOMES: dict[str, str] = {
    "AnthropicProvider": "swetui.providers.anthropic",
    "CircuitBreaker": "swetui.providers.resilience",
    "DEFAULT_MODELS": "swetui.providers.registry",
    "Done": "swetui.providers.events",
    "OfflineProvider": "swetui.providers.offline",
    "OllamaProvider": "swetui.providers.ollama",
    "OpenAIProvider": "swetui.providers.openai",
    "Provider": "swetui.providers.base",
    "ProviderConfigError": "swetui.providers.errors",
    "ProviderEvent": "swetui.providers.events",
    "ReasoningDelta": "swetui.providers.events",
    "RetryPolicy": "swetui.providers.resilience",
    "StreamError": "swetui.providers.events",
    "TextDelta": "swetui.providers.events",
    "ToolCallDelta": "swetui.providers.events",
    "ToolCallEnd": "swetui.providers.events",
    "ToolCallStart": "swetui.providers.events",
    "Usage": "swetui.providers.usage",
    "create_provider": "swetui.providers.registry",
    "resolve_model": "swetui.providers.registry",
}
"""Where each name lives. A name is imported when first used, so a session of the offline
model never loads httpx and the network providers (a third of `swetui run`'s start-up)."""

__getattr__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "DEFAULT_MODELS",
    "AnthropicProvider",
    "CircuitBreaker",
    "Done",
    "OfflineProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "Provider",
    "ProviderConfigError",
    "ProviderEvent",
    "ReasoningDelta",
    "RetryPolicy",
    "StreamError",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "Usage",
    "create_provider",
    "resolve_model",
]
