"""The gauge's cache line: which part of the next request is expected from the provider's
cache and which is sent fresh, then the last turn's measured hit rate and cost.

`cache 42k · fresh 3.1k · last 91% hit · $0.0213`; pieces that do not fit the width are
left out from the end, so at 80×24 the expected split always shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from swetui.agent import Cost, Usage, format_cost
from swetui.engine.cache import CacheView

CACHE_DELAY = 0.3
"""Seconds the cache line waits after a change before assembling the next request again."""


@dataclass(frozen=True)
class LastTurn:
    """What the last turn's model calls reported."""

    usage: Usage | None
    cost: Cost | None


def cache_line(view: CacheView | None, last: LastTurn | None, width: int, *,
               tokens: Callable[[int], str], label: Style, cached: Style,
               fresh: Style) -> Text:
    """The line, fitted to `width` cells; `tokens` writes a token count."""
    pieces: list[list[tuple[str, Style]]] = []
    if view is not None:
        if view.state == "warm":
            pieces.append([("cache ", label), (tokens(view.cached), cached)])
        else:
            pieces.append([(f"cache {view.state}", label)])
        pieces.append([(" · fresh ", label), (tokens(view.fresh), fresh)])
    if last is not None and last.usage is not None and last.usage.input_tokens:
        rate = last.usage.hit_rate or 0.0
        mark = "" if last.usage.measured else "~"
        pieces.append([(f" · last {mark}{rate:.0%} hit", label)])
    if last is not None and last.cost is not None:
        pieces.append([(f" · {format_cost(last.cost)}", label)])
    text = Text(no_wrap=True, overflow="ellipsis")
    for piece in pieces:
        length = sum(len(part) for part, _ in piece)
        if text.cell_len + length > width:
            break
        for part, style in piece:
            text.append(part.lstrip(" ·") if not text.cell_len else part, style)
    return text
