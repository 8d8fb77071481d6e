"""The provider of a model, built with that model's own settings (`[models."..."]`)."""

from __future__ import annotations

from collections.abc import Mapping

from swetui.config import Settings, model_settings
from swetui.providers.base import Provider
from swetui.providers.registry import create_provider


def provider_for(spec: str, env: Mapping[str, str], settings: Settings) -> Provider:
    """The provider of `spec`, with its tool-call mode and temperature; raises
    ProviderConfigError with a one-line message."""
    chosen = model_settings(settings, spec)
    return create_provider(spec, env, timeout=settings.request_timeout,
                           tool_calls=chosen.tool_calls, temperature=chosen.temperature)
