"""Ollama through its OpenAI-compatible endpoint at OLLAMA_HOST."""

from __future__ import annotations

import pytest

from swetui.providers.events import Done
from swetui.providers.ollama import OllamaProvider, ollama_base_url
from swetui.providers.registry import create_provider
from tests.providers.helpers import collect, text_of
from tests.providers.loopback import sse
from tests.providers.test_openai import USAGE, chunk


async def test_ollama_streams_from_ollama_host_without_a_key(server, providers):
    server.script(sse(chunk({"role": "assistant", "content": ""}),
                      chunk({"reasoning": "hmm"}), chunk({"content": "Hi from llama"}),
                      chunk(finish="stop"), USAGE, "data: [DONE]\n\n"))
    provider = create_provider("ollama:llama3.2:3b", {"OLLAMA_HOST": server.url})
    providers.append(provider)
    assert isinstance(provider, OllamaProvider) and provider.name == "ollama:llama3.2:3b"
    events = await collect(provider)
    assert text_of(events, "reasoning") == "hmm"
    assert text_of(events) == "Hi from llama"
    assert events[-1] == Done(stop_reason="stop")
    received = server.requests[0]
    assert received.path == "/v1/chat/completions"
    assert "authorization" not in received.headers
    assert received.json["model"] == "llama3.2:3b"
    assert received.json["max_tokens"] == 8192


async def test_ollama_host_without_scheme(server, providers):
    server.script(sse(chunk({"content": "ok"}), chunk(finish="stop"), "data: [DONE]\n\n"))
    provider = create_provider("ollama:qwen", {"OLLAMA_HOST": server.host})
    providers.append(provider)
    assert text_of(await collect(provider)) == "ok"


@pytest.mark.parametrize(("host", "expected"), [
    (None, "http://localhost:11434/v1"),
    ("", "http://localhost:11434/v1"),
    ("gpu-box", "http://gpu-box:11434/v1"),
    ("0.0.0.0:8080", "http://127.0.0.1:8080/v1"),
    ("http://10.0.0.5:11434/", "http://10.0.0.5:11434/v1"),
    ("https://ollama.example.com", "https://ollama.example.com/v1"),
    ("http://proxy.local/ollama/v1", "http://proxy.local/ollama/v1"),
])
def test_ollama_host_forms(host, expected):
    assert ollama_base_url(host) == expected


async def test_ollama_not_running_says_where_it_looked(providers, refused_port):
    host = f"127.0.0.1:{refused_port}"
    provider = create_provider("ollama:llama3", {"OLLAMA_HOST": host}, retry=None,
                               sleep=_no_wait)
    providers.append(provider)
    events = await collect(provider)
    assert events[-1].message.startswith(f"ollama: cannot connect to {host}")


async def _no_wait(seconds: float) -> None:
    return None
