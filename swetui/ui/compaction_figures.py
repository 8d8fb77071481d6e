"""The figures a compaction preview shows, defined once: the preview modal renders exactly
these rows, in this order: the tokens before and after, and what the compaction costs — the
cached tokens it turns fresh and the next send's cost — next to what it saves."""

from __future__ import annotations

from dataclasses import dataclass

from swetui.agent import CACHE_STATES, ChangePrice
from swetui.engine.compaction import CompactionPlan


@dataclass(frozen=True)
class Figure:
    """One row of the preview: a label, its value, and what the value means."""

    label: str
    value: str
    note: str = ""


def _share(tokens: int, window: int) -> str:
    return f"{tokens / window:.1%} of the window ({window:,})" if window > 0 else ""


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def cache_figures(price: ChangePrice) -> list[Figure]:
    """The cached tokens a change turns fresh, and the next send's cost without and with it
    (saying so when it un-caches more than it saves)."""
    effect = price.effect
    if effect.state == "warm":
        cache = Figure("un-caches", f"{effect.uncached:,} tokens",
                       "read from the cache now, sent fresh (and written again) after")
    else:
        cache = Figure("un-caches", "0 tokens", CACHE_STATES[effect.state])
    warning = "it un-caches more tokens than it saves" if price.uncaches_more_than_it_saves \
        else ""
    return [cache, Figure("next send", price.cost(), warning)]


def compaction_figures(plan: CompactionPlan, window: int,
                       price: ChangePrice | None = None) -> list[Figure]:
    """Tokens before and after (the budget total the gauge shows, reserve excluded), what
    is saved, what it un-caches and costs (`price`), and what folds into what."""
    saved = plan.tokens_before - plan.tokens_after
    cost = cache_figures(price) if price is not None else []
    return [
        Figure("request now", f"{plan.tokens_before:,} tokens",
               _share(plan.tokens_before, window)),
        Figure("after", f"{plan.tokens_after:,} tokens", _share(plan.tokens_after, window)),
        Figure("saved", f"{saved:,} tokens", f"−{plan.reduction:.0f}% of the request"),
        *cost,
        Figure("folds", _count(len(plan.folds), "item"),
               f"into {_count(len(plan.created), 'new item')}; the originals stay in the "
               "archive"),
    ]
