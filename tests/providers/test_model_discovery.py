"""`--model openai:` (or `ollama:`) with no name lists what the server offers; `/model`
asks the session, which asks the server (`/v1/models`, Ollama's `/api/tags`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.providers.errors import ProviderConfigError
from swetui.providers.registry import create_provider
from tests.providers.loopback import json_reply

MODELS = {"object": "list", "data": [
    {"id": "smollm2-135m-instruct", "object": "model", "owned_by": "me"},
    {"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "me"}]}
TAGS = {"models": [{"name": "llama3.2:latest", "size": 1}, {"name": "qwen2.5-coder:7b"}]}


async def refused_message(spec: str, env: dict[str, str]) -> str:
    with pytest.raises(ProviderConfigError) as refused:
        await asyncio.to_thread(create_provider, spec, env)
    return str(refused.value)


async def test_openai_with_no_model_name_lists_the_server_s_models(server):
    server.routes[("GET", "/v1/models")] = json_reply(200, MODELS)
    message = await refused_message("openai:", {"OPENAI_BASE_URL": f"{server.url}/v1"})
    assert f"the server at {server.host} offers qwen2.5-coder-1.5b, smollm2-135m-instruct" \
        in message
    assert "--model openai:qwen2.5-coder-1.5b" in message


async def test_ollama_with_no_model_name_lists_its_tags(server):
    server.routes[("GET", "/api/tags")] = json_reply(200, TAGS)
    message = await refused_message("ollama:", {"OLLAMA_HOST": server.url})
    assert "offers llama3.2:latest, qwen2.5-coder:7b" in message


async def test_a_server_that_does_not_list_says_so(server):
    server.script_path = "/v1/chat/completions"
    message = await refused_message("openai:", {"OPENAI_BASE_URL": f"{server.url}/v1"})
    assert "did not list its models" in message and "--model openai:NAME" in message


async def test_openai_s_own_api_without_a_key_is_not_asked():
    message = await refused_message("openai:", {})
    assert message == "openai needs a model name, e.g. openai:gpt-4.1"


async def test_the_session_lists_the_models_of_its_server_and_of_another_provider(
        server, tmp_path: Path):
    server.routes[("GET", "/v1/models")] = json_reply(200, MODELS)
    server.routes[("GET", "/api/tags")] = json_reply(200, TAGS)
    env = {"OPENAI_BASE_URL": f"{server.url}/v1", "OLLAMA_HOST": server.url}
    session = AgentSession.open(LaunchOptions(path=tmp_path, model="openai:qwen2.5-coder-1.5b"),
                                env=env)
    try:
        assert await session.available_models() == ["qwen2.5-coder-1.5b",
                                                    "smollm2-135m-instruct"]
        assert await session.available_models("ollama:") == ["llama3.2:latest",
                                                             "qwen2.5-coder:7b"]
        assert await session.available_models("anthropic:") is None
    finally:
        await session.aclose()
