"""Prices from genai-prices: cache reads and writes priced as the provider prices them, an
unknown model says so, a configured price wins, local models cost $0."""

from __future__ import annotations

import pytest

from swetui.agent.cost import NOTHING, UNKNOWN, Cost, format_cost, sum_costs
from swetui.agent.pricing import PriceBook
from swetui.config import ModelPrice
from swetui.providers.usage import Usage

CACHED = Usage(input_tokens=49_540, cache_read_tokens=48_000, cache_write_tokens=1_500,
               output_tokens=77)
# Anthropic's published Sonnet 4.5 rates, per million tokens: $3 input, $0.30 cache read,
# $3.75 cache write (5 minutes), $15 output.
SONNET = (40 * 3 + 48_000 * 0.30 + 1_500 * 3.75 + 77 * 15) / 1e6


def book(env: dict[str, str] | None = None, **prices: ModelPrice) -> PriceBook:
    return PriceBook(env or {}, prices)


def test_anthropic_cache_reads_and_writes_are_priced_apart():
    cost = book().cost("anthropic:claude-sonnet-4-5", CACHED)
    assert cost.basis == "genai-prices"
    assert cost.usd == pytest.approx(SONNET, rel=1e-6)
    uncached = book().cost("anthropic:claude-sonnet-4-5",
                           Usage(input_tokens=49_540, output_tokens=77))
    assert uncached.usd is not None and cost.usd < uncached.usd / 5


def test_openai_cached_tokens_are_cheaper():
    cached = book().cost("openai:gpt-4o", Usage(input_tokens=10_000, cache_read_tokens=8_000,
                                                output_tokens=100))
    fresh = book().cost("openai:gpt-4o", Usage(input_tokens=10_000, output_tokens=100))
    assert cached.usd is not None and fresh.usd is not None and cached.usd < fresh.usd


def test_an_unknown_model_is_priced_unknown_and_says_so():
    cost = book().cost("openai:my-private-finetune", CACHED)
    assert cost == UNKNOWN and format_cost(cost) == "price unknown"
    behind_a_router = book({"OPENAI_BASE_URL": "https://llm.example.internal/v1"})
    assert behind_a_router.cost("openai:qwen3-coder-local", CACHED).usd is None


def test_a_price_in_the_config_wins():
    price = ModelPrice(input=2.0, output=8.0, cache_read=0.5)
    cost = book(**{"openai:my-private-finetune": price}).cost("openai:my-private-finetune",
                                                              CACHED)
    expected = (40 * 2.0 + 48_000 * 0.5 + 1_500 * 2.0 + 77 * 8.0) / 1e6
    assert cost.basis == "config" and cost.usd == pytest.approx(expected)
    by_name = book(**{"claude-sonnet-4-5": price}).cost("anthropic:claude-sonnet-4-5", CACHED)
    assert by_name.basis == "config"


@pytest.mark.parametrize(("spec", "env"), [
    ("offline", {}),
    ("ollama:llama3.2", {}),
    ("ollama:qwen3", {"OLLAMA_HOST": "gpu-box:11434"}),
    ("openai:gpt-4o", {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}),
    ("openai:qwen", {"OPENAI_BASE_URL": "http://localhost:1234/v1"}),
    ("openai:qwen", {"OPENAI_BASE_URL": "http://[::1]:8000/v1"}),
])
def test_local_and_loopback_models_cost_nothing(spec, env):
    cost = book(env).cost(spec, CACHED)
    assert cost.usd == 0 and cost.basis == "local"
    assert format_cost(cost) == "$0 (local)"


def test_sums_keep_unknown_prices_visible():
    known = Cost(usd=0.01, basis="genai-prices")
    assert sum_costs([]) == NOTHING
    assert format_cost(sum_costs([known, known])) == "$0.0200"
    assert format_cost(sum_costs([known, UNKNOWN])) == "$0.0100 + calls of unknown price"
    assert format_cost(sum_costs([UNKNOWN, UNKNOWN])) == "price unknown"
    assert format_cost(Cost(usd=12.5, basis="genai-prices")) == "$12.50"
