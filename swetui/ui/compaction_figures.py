"""The figures a compaction preview shows, defined once: the preview modal renders exactly
these rows, in this order. (A figure of what the compaction costs — the cache it turns
fresh — belongs here too, next to the tokens.)"""

from __future__ import annotations

from dataclasses import dataclass

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


def compaction_figures(plan: CompactionPlan, window: int) -> list[Figure]:
    """Tokens before and after (the budget total the gauge shows, reserve excluded), what
    is saved, and what folds into what."""
    saved = plan.tokens_before - plan.tokens_after
    return [
        Figure("request now", f"{plan.tokens_before:,} tokens",
               _share(plan.tokens_before, window)),
        Figure("after", f"{plan.tokens_after:,} tokens", _share(plan.tokens_after, window)),
        Figure("saved", f"{saved:,} tokens", f"−{plan.reduction:.0f}% of the request"),
        Figure("folds", _count(len(plan.folds), "item"),
               f"into {_count(len(plan.created), 'new item')}; the originals stay in the "
               "archive"),
    ]
