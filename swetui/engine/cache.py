"""What of the next request a provider is expected to read from its cache (DESIGN §2,
"History and the cache").

Assembly describes the stable part of each request as a sequence of `PrefixUnit`s (each
tool, the system prompt, each memory file, each message, in the order the provider reads
them) and the breakpoints it asked the provider to cache at. Comparing the next request's
units with those of the last one sent tells, before anything is sent, which tokens are
unchanged and which the provider will read from its cache:

- a provider that caches at explicit breakpoints (Anthropic) reads up to the last breakpoint
  of the previous request that still lies inside the unchanged prefix;
- one that caches prefixes on its own (OpenAI-compatible servers) reads the unchanged prefix;
- neither keeps a prefix shorter than `MIN_CACHED` tokens, nor one unused for `LIFETIME`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

LIFETIME = 300.0
"""Seconds a provider keeps an unused prefix (Anthropic's default cache lasts 5 minutes;
OpenAI keeps prefixes for 5 to 10 minutes of inactivity)."""

MIN_CACHED = 1_024
"""The shortest prefix Anthropic and OpenAI cache."""


@dataclass(frozen=True, slots=True)
class PrefixUnit:
    """One stable piece of a request as sent: `key` changes when its bytes do."""

    key: str
    tokens: int
    item_id: str


Mark = tuple[int, int, str]
"""A breakpoint as the session log keeps it: units before it, their tokens, their digest."""


@dataclass(frozen=True, slots=True)
class SentPrefix:
    """The stable part of the last request sent, as the provider will remember it: its units
    when this process sent it, only its breakpoints' `marks` when read back from the log."""

    units: tuple[PrefixUnit, ...]
    breakpoints: tuple[int, ...]
    """Prefix lengths, in units, that ended a cache breakpoint."""
    model: str
    at: float
    """When it was sent (monotonic seconds)."""
    marks: tuple[Mark, ...] = ()

    def breakpoint_marks(self) -> tuple[Mark, ...]:
        """Its breakpoints as the session log keeps them."""
        return prefix_marks(self.units, self.breakpoints) if self.units else self.marks


def prefix_marks(units: Sequence[PrefixUnit], breakpoints: Sequence[int]) -> tuple[Mark, ...]:
    """Each breakpoint's length, tokens and a digest of the units before it."""
    digest = hashlib.sha256()
    marks: list[Mark] = []
    done = tokens = 0
    for end in sorted(set(breakpoints)):
        for unit in units[done:end]:
            digest.update(unit.key.encode("utf-8", "surrogatepass") + b"\n")
            tokens += unit.tokens
        done = max(done, end)
        marks.append((end, tokens, digest.hexdigest()[:24]))
    return tuple(marks)


def _reached_mark(marks: Sequence[Mark], units: Sequence[PrefixUnit]) -> Mark | None:
    """The longest of a logged request's breakpoints whose prefix `units` still start with."""
    current = {end: digest for end, _, digest in
               prefix_marks(units, [end for end, _, _ in marks if end <= len(units)])}
    matched = [mark for mark in marks if current.get(mark[0]) == mark[2]]
    return max(matched, default=None)


CacheState = Literal["cold", "warm", "expired", "other-model", "none"]


class CacheView(BaseModel):
    """The next request split into what is expected from the cache and what is sent fresh."""

    model_config = ConfigDict(frozen=True)

    total: int
    """Tokens of the whole next request (as assembly counts them)."""
    cached: int
    """Expected to be read from the provider's cache."""
    unchanged: int
    """Tokens of the longest prefix unchanged since the last send."""
    changed_at: str | None = None
    """The first item whose part of the request changed since the last send."""
    state: CacheState = "cold"
    """`cold`: nothing sent yet; `expired`: the last send is older than the cache lasts;
    `other-model`: the model changed since; `warm`: the cache is expected to hold; `none`:
    the model keeps no cache (offline)."""

    @property
    def fresh(self) -> int:
        return max(0, self.total - self.cached)


def unchanged_prefix(previous: Sequence[PrefixUnit], current: Sequence[PrefixUnit]) -> int:
    """How many leading units the two requests share."""
    count = 0
    for old, new in zip(previous, current, strict=False):
        if old.key != new.key:
            break
        count += 1
    return count


def explicit_caching(model: str) -> bool:
    """Whether the model's provider caches only at the request's breakpoints."""
    return model.strip().lower().startswith("anthropic:")


def expect_cache(previous: SentPrefix | None, units: Sequence[PrefixUnit], total: int, *,
                 model: str, now: float, lifetime: float = LIFETIME) -> CacheView:
    """The cache view of a request whose stable units are `units` (`total` tokens in all),
    sent at `now` after `previous`."""
    if model == "offline":
        return CacheView(total=total, cached=0, unchanged=0, state="none")
    if previous is None:
        return CacheView(total=total, cached=0, unchanged=0, state="cold")
    if not previous.units:  # read back from the log: known only at its breakpoints
        mark = _reached_mark(previous.marks, units)
        shared = mark[0] if mark is not None else 0
        previous = SentPrefix(units=tuple(units[:shared]), breakpoints=(shared,),
                              model=previous.model, at=previous.at)
    shared = unchanged_prefix(previous.units, units)
    unchanged = sum(unit.tokens for unit in units[:shared])
    changed_at = units[shared].item_id if shared < len(units) else None
    if previous.model != model:
        return CacheView(total=total, cached=0, unchanged=unchanged, changed_at=changed_at,
                         state="other-model")
    if now - previous.at > lifetime:
        return CacheView(total=total, cached=0, unchanged=unchanged, changed_at=changed_at,
                         state="expired")
    if explicit_caching(model):
        reach = max((mark for mark in previous.breakpoints if mark <= shared), default=0)
        cached = sum(unit.tokens for unit in units[:reach])
    else:
        cached = unchanged
    if cached < MIN_CACHED:
        cached = 0
    return CacheView(total=total, cached=min(cached, total), unchanged=unchanged,
                     changed_at=changed_at, state="warm")
