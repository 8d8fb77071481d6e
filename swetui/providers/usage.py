"""One normalised token-usage record for every provider (DESIGN §5).

Providers disagree on what "input" means: Anthropic's `input_tokens` leaves out the tokens
read from or written to its cache, OpenAI's `prompt_tokens` includes the cached ones. Each
provider's figures pass through one function here, so everything downstream (calibration,
cost, `/stats`, the gauge) reads the same shape:

- `input_tokens`: everything the request sent, cache reads and writes included;
- `cache_read_tokens`: the part read from the provider's cache;
- `cache_write_tokens`: the part written to the cache (Anthropic prices it above fresh input);
- `fresh_input_tokens`: the rest, sent at the normal input price;
- `output_tokens`: everything generated, reasoning included;
- `reasoning_tokens`: the part of the output spent thinking, when the provider says;
- `measured`: False when the provider reported nothing and swetui estimated the counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


def _count(value: Any) -> int:
    """A token count from a provider's JSON (absent, null, negative or junk reads 0)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        return max(0, int(value))
    return 0


class Usage(BaseModel):
    """Token usage of one model call (or a sum of calls), normalised across providers."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["usage"] = "usage"
    input_tokens: int = 0
    """All prompt tokens sent, cache reads and cache writes included."""
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    """All generated tokens, reasoning included."""
    reasoning_tokens: int = 0
    measured: bool = True
    """False when the figures are swetui's estimate (the provider reported no usage)."""

    @property
    def fresh_input_tokens(self) -> int:
        """Prompt tokens sent at the normal (uncached) input price."""
        return max(0, self.input_tokens - self.cache_read_tokens - self.cache_write_tokens)

    @property
    def hit_rate(self) -> float | None:
        """The share of the prompt read from cache (None when nothing was sent)."""
        return self.cache_read_tokens / self.input_tokens if self.input_tokens else None

    def __add__(self, other: Usage) -> Usage:
        """The sum of two calls; estimated if either was."""
        return Usage(input_tokens=self.input_tokens + other.input_tokens,
                     cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
                     cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
                     output_tokens=self.output_tokens + other.output_tokens,
                     reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
                     measured=self.measured and other.measured)


NO_USAGE = Usage()
"""Nothing sent, nothing generated (the start of a sum)."""


def total_usage(usages: Iterable[Usage]) -> Usage:
    """The sum of several calls' usage."""
    total = NO_USAGE
    for usage in usages:
        total = total + usage
    return total


def estimated_usage(input_tokens: int, output_tokens: int) -> Usage:
    """swetui's own estimate, for a call whose provider reported no usage."""
    return Usage(input_tokens=max(0, input_tokens), output_tokens=max(0, output_tokens),
                 measured=False)


def anthropic_usage(usage: Mapping[str, Any], *, output_tokens: int | None = None) -> Usage:
    """Anthropic's `usage` object: `input_tokens` excludes `cache_read_input_tokens` and
    `cache_creation_input_tokens`, so the total input is their sum. Thinking is counted in
    `output_tokens` and not reported apart."""
    fresh = _count(usage.get("input_tokens"))
    read = _count(usage.get("cache_read_input_tokens"))
    written = _count(usage.get("cache_creation_input_tokens"))
    output = _count(usage.get("output_tokens")) if output_tokens is None else output_tokens
    return Usage(input_tokens=fresh + read + written, cache_read_tokens=read,
                 cache_write_tokens=written, output_tokens=output)


def openai_usage(usage: Mapping[str, Any]) -> Usage:
    """An OpenAI-compatible `usage` object: `prompt_tokens` includes
    `prompt_tokens_details.cached_tokens`; `completion_tokens` includes
    `completion_tokens_details.reasoning_tokens`. Also read: DeepSeek's
    `prompt_cache_hit_tokens`, and `cache_write_tokens` where a router reports it."""
    prompt = _count(usage.get("prompt_tokens"))
    details = usage.get("prompt_tokens_details")
    details = details if isinstance(details, Mapping) else {}
    read = _count(details.get("cached_tokens")) or _count(usage.get("prompt_cache_hit_tokens"))
    written = _count(details.get("cache_write_tokens"))
    completion = usage.get("completion_tokens_details")
    completion = completion if isinstance(completion, Mapping) else {}
    reasoning = _count(completion.get("reasoning_tokens"))
    output = _count(usage.get("completion_tokens"))
    # A server that reports parts larger than the whole has the whole wrong: trust the parts.
    prompt = max(prompt, read + written)
    return Usage(input_tokens=prompt, cache_read_tokens=read, cache_write_tokens=written,
                 output_tokens=max(output, reasoning), reasoning_tokens=reasoning)



def usage_line(usage: Usage) -> str:
    """`↑12,345 (10,000 cached, 1,200 written) ↓321 tokens`, `~` marking an estimate."""
    approx = "" if usage.measured else "~"
    parts = []
    if usage.cache_read_tokens:
        parts.append(f"{usage.cache_read_tokens:,} cached")
    if usage.cache_write_tokens:
        parts.append(f"{usage.cache_write_tokens:,} written to cache")
    if usage.reasoning_tokens:
        parts.append(f"{usage.reasoning_tokens:,} reasoning")
    line = f"↑{approx}{usage.input_tokens:,} ↓{approx}{usage.output_tokens:,} tokens"
    if parts:
        line += f" ({', '.join(parts)})"
    return line + ("" if usage.measured else " (estimated)")
