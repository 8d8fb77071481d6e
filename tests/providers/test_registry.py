"""Model choice (DESIGN §5 order) and building providers from `provider:model`."""

from __future__ import annotations

import pytest

from swetui.providers import (
    AnthropicProvider,
    OfflineProvider,
    OllamaProvider,
    OpenAIProvider,
    ProviderConfigError,
    create_provider,
    resolve_model,
)
from swetui.providers.base import Provider
from swetui.providers.registry import DEFAULT_MODELS

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-secret", "OPENAI_API_KEY": "sk-openai-secret"}


def test_cli_beats_env_beats_config_beats_keys():
    env = {"SWETUI_MODEL": "openai:from-env", **KEYS}
    assert resolve_model("ollama:cli", env, "openai:from-config") == "ollama:cli"
    assert resolve_model(None, env, "openai:from-config") == "openai:from-env"
    assert resolve_model(None, KEYS, "openai:from-config") == "openai:from-config"


def test_keys_choose_the_provider_when_nothing_else_does():
    assert resolve_model(None, KEYS, None) == f"anthropic:{DEFAULT_MODELS['anthropic']}"
    assert resolve_model(None, {"OPENAI_API_KEY": "k"}, None) == \
        f"openai:{DEFAULT_MODELS['openai']}"
    assert resolve_model(None, {}, None) == "offline"


def test_blank_values_count_as_unset():
    env = {"SWETUI_MODEL": "  ", "ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "k"}
    assert resolve_model("", env, "") == f"openai:{DEFAULT_MODELS['openai']}"


async def test_create_each_provider():
    env = {**KEYS, "ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "OLLAMA_HOST": "127.0.0.1:2"}
    made: list[Provider] = [create_provider(spec, env) for spec in (
        "anthropic:claude-x", "openai:gpt-x", "ollama:llama3:8b", "offline")]
    try:
        assert [type(p) for p in made] == [AnthropicProvider, OpenAIProvider, OllamaProvider,
                                           OfflineProvider]
        assert [p.name for p in made] == ["anthropic:claude-x", "openai:gpt-x",
                                          "ollama:llama3:8b", "offline"]
        assert all(isinstance(p, Provider) for p in made)
        assert made[0].base_url == "http://127.0.0.1:1"
        assert made[2].base_url == "http://127.0.0.1:2/v1"
        assert all(secret not in repr(p) for p in made for secret in KEYS.values())
    finally:
        for provider in made:
            await provider.aclose()


@pytest.mark.parametrize(("spec", "env", "message"), [
    ("anthropic:claude-x", {}, "anthropic:claude-x needs ANTHROPIC_API_KEY"),
    ("openai:gpt-x", {}, "openai:gpt-x needs OPENAI_API_KEY"),
    ("anthropic", KEYS, "anthropic needs a model name, e.g. anthropic:"),
    ("ollama:", {}, "ollama needs a model name"),
    ("gemini:pro", KEYS, "unknown provider 'gemini' in 'gemini:pro'"),
])
def test_configuration_errors_are_one_clear_line(spec, env, message):
    with pytest.raises(ProviderConfigError) as caught:
        create_provider(spec, env)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


async def test_a_compatible_server_needs_no_openai_key():
    provider = create_provider("openai:local-model", {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"})
    try:
        assert provider.name == "openai:local-model"
    finally:
        await provider.aclose()


def test_create_provider_passes_the_timeout():
    provider = create_provider("anthropic:c", KEYS, timeout=7.5)
    assert provider.timeout == 7.5
