"""Model back ends behind one streaming interface.

Imports only `swetui.messages` and this package (never the engine, the agent or Textual), so
providers work and are tested headless.
"""

from __future__ import annotations

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
