"""What a model call costs, priced by `genai-prices` (kept by the Pydantic team), never by a
hand-kept table: cache reads and writes are priced the way the provider prices them.

- a price set in the config for the model wins (`[prices."openai:my-model"]`);
- `offline`, `ollama:*` and OpenAI-compatible servers on this machine (loopback) cost $0;
- `anthropic:*` is priced as Anthropic, whatever `ANTHROPIC_BASE_URL` says (a proxy);
- `openai:*` is priced as OpenAI at OpenAI's URL, otherwise by the provider genai-prices
  finds for the base URL (OpenRouter, Fireworks, …);
- anything else: the tokens are shown and the price is unknown.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlsplit

from swetui.agent.cost import FREE, MILLION, UNKNOWN, Cost
from swetui.config import ModelPrice
from swetui.providers.registry import endpoint, split_spec
from swetui.providers.usage import Usage


def _is_loopback(url: str | None) -> bool:
    host = (urlsplit(url).hostname or "") if url else ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class _Target:
    """Where genai-prices should look a model up."""

    model: str
    provider_id: str | None = None
    api_url: str | None = None


class PriceBook:
    """Prices model calls for one session's environment and config."""

    def __init__(self, env: Mapping[str, str], overrides: Mapping[str, ModelPrice]) -> None:
        self.env = dict(env)
        self.overrides = dict(overrides)

    def cost(self, spec: str, usage: Usage) -> Cost:
        """The cost of `usage` on the model named by `spec` (`anthropic:claude-…`)."""
        provider, model = split_spec(spec)
        override = self.overrides.get(spec.strip()) or self.overrides.get(model)
        if override is not None:
            return Cost(usd=_priced_by_config(override, usage), basis="config")
        if self.is_local(spec):
            return FREE
        target = self._target(provider, model)
        if target is None:
            return UNKNOWN
        return _priced_by_genai_prices(target, usage)

    def warm(self, spec: str) -> None:
        """Load genai-prices and its data now, unless `spec` is local (call it in a thread
        at session start: it takes most of a second, not for the event loop or a send)."""
        self.cost(spec, Usage(input_tokens=1))

    def is_local(self, spec: str) -> bool:
        """Runs on this machine or the user's own server: costs nothing."""
        provider, _ = split_spec(spec)
        if provider in ("offline", "ollama"):
            return True
        return provider == "openai" and _is_loopback(endpoint(spec, self.env))

    def _target(self, provider: str, model: str) -> _Target | None:
        if not model:
            return None
        if provider == "anthropic":
            return _Target(model, provider_id="anthropic")
        if provider == "openai":
            url = endpoint(f"openai:{model}", self.env) or ""
            if urlsplit(url).hostname == "api.openai.com":
                return _Target(model, provider_id="openai")
            return _Target(model, api_url=url)
        return None


def _priced_by_config(price: ModelPrice, usage: Usage) -> float:
    read = price.input if price.cache_read is None else price.cache_read
    write = price.input if price.cache_write is None else price.cache_write
    return (usage.fresh_input_tokens * price.input + usage.cache_read_tokens * read
            + usage.cache_write_tokens * write + usage.output_tokens * price.output) / MILLION


def _priced_by_genai_prices(target: _Target, usage: Usage) -> Cost:
    # Imported here, not at the top: genai-prices takes most of a second to import and
    # load its data, which start-up must not pay (the session warms it in a thread).
    from genai_prices import Usage as PricedUsage
    from genai_prices import calc_price  # (as above)

    priced = PricedUsage(input_tokens=usage.input_tokens,
                         cache_read_tokens=usage.cache_read_tokens,
                         cache_write_tokens=usage.cache_write_tokens,
                         output_tokens=usage.output_tokens)
    try:
        if target.api_url is not None:
            result = calc_price(priced, target.model, provider_api_url=target.api_url)
        else:
            result = calc_price(priced, target.model, provider_id=target.provider_id)
    except (LookupError, ValueError):
        return UNKNOWN
    total = result.total_price
    if not isinstance(total, Decimal | int | float):
        return UNKNOWN
    return Cost(usd=float(total), basis="genai-prices")
