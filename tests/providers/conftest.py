"""Fixtures for provider tests: a loopback server and providers wired to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from swetui.providers.anthropic import AnthropicProvider
from swetui.providers.base import Provider
from swetui.providers.openai import OpenAIProvider
from swetui.providers.resilience import CircuitBreaker
from tests.providers.helpers import API_KEY
from tests.providers.loopback import FakeClock, LoopbackServer, RecordedSleeps


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx honours proxy variables; loopback traffic must not go through a proxy."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    """A scripted HTTP server on 127.0.0.1."""
    srv = LoopbackServer()
    await srv.start()
    yield srv
    await srv.stop()


@pytest.fixture
def clock() -> FakeClock:
    """The circuit breaker's clock."""
    return FakeClock()


@pytest.fixture
def sleeps() -> RecordedSleeps:
    """The retry loop's sleep: records the backoff delays without waiting."""
    return RecordedSleeps()


@pytest.fixture
async def providers() -> AsyncIterator[list[Provider]]:
    """Providers to close after the test."""
    made: list[Provider] = []
    yield made
    for provider in made:
        await provider.aclose()


@pytest.fixture
def openai(server: LoopbackServer, clock: FakeClock, sleeps: RecordedSleeps,
           providers: list[Provider]) -> Callable[..., OpenAIProvider]:
    """Make an OpenAIProvider talking to the loopback server."""
    def make(**options: Any) -> OpenAIProvider:
        options.setdefault("timeout", 5.0)
        options.setdefault("breaker", CircuitBreaker(clock=clock))
        provider = OpenAIProvider("gpt-test", base_url=f"{server.url}/v1", api_key=API_KEY,
                                  sleep=sleeps, **options)
        providers.append(provider)
        return provider
    return make


@pytest.fixture
def anthropic(server: LoopbackServer, clock: FakeClock, sleeps: RecordedSleeps,
              providers: list[Provider]) -> Callable[..., AnthropicProvider]:
    """Make an AnthropicProvider talking to the loopback server."""
    def make(**options: Any) -> AnthropicProvider:
        options.setdefault("timeout", 5.0)
        options.setdefault("breaker", CircuitBreaker(clock=clock))
        provider = AnthropicProvider("claude-test", base_url=server.url, api_key=API_KEY,
                                     sleep=sleeps, **options)
        providers.append(provider)
        return provider
    return make
