"""Which model to use (DESIGN §5 order) and building its provider from a `provider:model` spec.

A provider's module is imported when that provider is built: the network providers bring
httpx, a third of `swetui run`'s start-up, which a session of the offline model never needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from swetui.providers.base import Provider
from swetui.providers.errors import ProviderConfigError
from swetui.providers.offline import OfflineProvider
from swetui.providers.text_calls import ToolCallMode

if TYPE_CHECKING:
    from swetui.providers.local_server import LocalServer

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-4.1",
}
"""The model picked when only an API key tells which provider to use."""

PROVIDER_NAMES = ("anthropic", "openai", "ollama", "offline")

_USAGE = "use anthropic:MODEL, openai:MODEL, ollama:MODEL or offline"


def _setting(env: Mapping[str, str], key: str) -> str | None:
    """An environment value, with blank treated as unset (`FOO= swetui` is common)."""
    value = env.get(key)
    return value.strip() if value and value.strip() else None


def resolve_model(cli_model: str | None, env: Mapping[str, str],
                  config_model: str | None) -> str:
    """The `provider:model` to use: `--model` > `SWETUI_MODEL` > config > `anthropic:<default>`
    when `ANTHROPIC_API_KEY` is set > `openai:<default>` when `OPENAI_API_KEY` is set >
    `offline`."""
    for choice in (cli_model, _setting(env, "SWETUI_MODEL"), config_model):
        if choice and choice.strip():
            return choice.strip()
    if _setting(env, "ANTHROPIC_API_KEY"):
        return f"anthropic:{DEFAULT_MODELS['anthropic']}"
    if _setting(env, "OPENAI_API_KEY"):
        return f"openai:{DEFAULT_MODELS['openai']}"
    return "offline"


def split_spec(spec: str) -> tuple[str, str]:
    """`("ollama", "llama3:8b")` for `ollama:llama3:8b`; the model may itself contain colons."""
    provider, _, model = spec.strip().partition(":")
    return provider.strip().lower(), model.strip()


def model_server(provider: str, env: Mapping[str, str]) -> LocalServer | None:
    """The server that `provider:` models come from, to ask which it offers (None for a
    provider without one: anthropic, offline, or OpenAI's API with no key)."""
    from swetui.providers.local_server import LocalServer  # noqa: PLC0415 (see the top)

    if provider == "ollama":
        return LocalServer(_base_url("ollama", env), "", ollama=True)
    if provider != "openai":
        return None
    base_url = _base_url("openai", env)
    key = _setting(env, "OPENAI_API_KEY")
    if not key and "api.openai.com" in base_url:
        return None
    return LocalServer(base_url, "", headers={"authorization": f"Bearer {key}"} if key else None)


def local_server_of(provider: Provider) -> LocalServer | None:
    """The llama.cpp / Ollama / compatible server behind `provider` (`LocalServer.of`),
    without loading the network code for the offline model."""
    if isinstance(provider, OfflineProvider):
        return None
    from swetui.providers.local_server import LocalServer  # noqa: PLC0415 (see the top)

    return LocalServer.of(provider)


def _no_model_name(provider: str, env: Mapping[str, str]) -> str:
    """The message for `openai:` / `ollama:` with no name: what the server offers."""
    server = model_server(provider, env)
    if server is None:
        example = DEFAULT_MODELS.get(provider, "llama3.2")
        return f"{provider} needs a model name, e.g. {provider}:{example}"
    from swetui.providers.local_server import models_message  # noqa: PLC0415 (see the top)

    host = urlsplit(server.root).netloc or server.root
    return models_message(provider, host, server.models_now())


def endpoint(spec: str, env: Mapping[str, str]) -> str | None:
    """The base URL `spec` would talk to (from `env` as `create_provider` reads it); None
    for `offline` and an unknown provider."""
    match split_spec(spec)[0]:
        case "anthropic" | "openai" | "ollama" as provider:
            return _base_url(provider, env)
        case _:
            return None


def _base_url(provider: Literal["anthropic", "openai", "ollama"],
              env: Mapping[str, str]) -> str:
    """Where `provider` is reached: its variable in `env`, else its default."""
    if provider == "anthropic":
        from swetui.providers.anthropic import (  # noqa: PLC0415 (see the top)
            DEFAULT_ANTHROPIC_BASE_URL,
        )
        return _setting(env, "ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_BASE_URL
    if provider == "openai":
        from swetui.providers.openai import DEFAULT_OPENAI_BASE_URL  # noqa: PLC0415 (see the top)
        return _setting(env, "OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL
    from swetui.providers.ollama import ollama_base_url  # noqa: PLC0415 (see the top)
    return ollama_base_url(_setting(env, "OLLAMA_HOST"))


def create_provider(spec: str, env: Mapping[str, str], *, timeout: float = 120.0,
                    tool_calls: ToolCallMode = "auto", temperature: float | None = None,
                    **options: Any) -> Provider:
    """Build the provider for `spec` (`anthropic:MODEL`, `openai:MODEL`, `ollama:MODEL`,
    `offline`), reading base URLs and keys from `env`.

    Raises `ProviderConfigError` with a one-line message for an unknown provider, a missing
    model name or a missing API key. `tool_calls` is how an OpenAI-compatible model calls
    tools and `temperature` its sampling temperature (the server's default when None);
    `options` go to the provider (retry, breaker, clock...).
    """
    provider, model = split_spec(spec)
    if provider == "offline":
        return OfflineProvider()
    if provider not in PROVIDER_NAMES:
        shown = spec.strip() or "an empty model name"
        raise ProviderConfigError(f"unknown provider {provider!r} in {shown!r}; {_USAGE}")
    if not model:
        raise ProviderConfigError(_no_model_name(provider, env))
    if provider == "anthropic":
        from swetui.providers.anthropic import AnthropicProvider  # noqa: PLC0415 (see the top)

        key = _setting(env, "ANTHROPIC_API_KEY")
        if not key:
            raise ProviderConfigError(f"{provider}:{model} needs ANTHROPIC_API_KEY")
        return AnthropicProvider(
            model, api_key=key,
            base_url=_base_url("anthropic", env),
            timeout=timeout, **options)
    if provider == "openai":
        from swetui.providers.openai import OpenAIProvider  # noqa: PLC0415 (see the top)

        base_url = _base_url("openai", env)
        key = _setting(env, "OPENAI_API_KEY")
        # Local compatible servers (llama.cpp, vLLM, LM Studio) usually need no key;
        # OpenAI's own API always does.
        if not key and "api.openai.com" in base_url:
            raise ProviderConfigError(
                f"{provider}:{model} needs OPENAI_API_KEY (or OPENAI_BASE_URL for a "
                "compatible server)")
        return OpenAIProvider(model, api_key=key, base_url=base_url, timeout=timeout,
                              tool_calls=tool_calls, temperature=temperature, **options)
    from swetui.providers.ollama import OllamaProvider  # noqa: PLC0415 (see the top)

    return OllamaProvider(model, host=_setting(env, "OLLAMA_HOST"), timeout=timeout,
                          tool_calls=tool_calls, temperature=temperature, **options)
