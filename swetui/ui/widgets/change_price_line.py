"""What the inspector's keys would do, priced before they are pressed (issue 11, item 5).

While the inspector has focus, two lines under it say what `p` (pin or unpin) and `d` (drop
or restore) would do to the highlighted or selected items: the tokens saved or added, the
tokens turned from read-from-cache into sent fresh, and the next send's cost before → after.
`d drop −590 · 4.9k cached→fresh · $0.0018→$0.0166 · un-caches more than it saves`
Pieces that do not fit the width are left out from the end; a change that un-caches more
than it saves is drawn in the warning colour.

It is worked out again 0.3 s after the targets, the context or the cache change (two
requests assembled on the side: not on every cursor step of a held-down key).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Literal

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from swetui.agent import (
    CACHE_STATES,
    ChangePrice,
    ContextChange,
    ItemsChange,
    toggle_action,
)
from swetui.engine.context import UnknownItem
from swetui.ui.widgets.gauge import format_tokens
from swetui.ui.widgets.inspector import ContextInspector

DELAY = 0.3
"""Seconds between looks at what the inspector targets."""

KEYS: tuple[tuple[str, Literal["pin", "drop"]], ...] = (("p", "pin"), ("d", "drop"))


def price_pieces(key: str, price: ChangePrice) -> list[str]:
    """One key's line, in pieces, most important first."""
    effect = price.effect
    action = price.what.split(" ", 1)[0]
    saved = effect.saved
    tokens = "±0" if not saved else \
        f"−{format_tokens(saved)}" if saved > 0 else f"+{format_tokens(-saved)}"
    pieces = [f"{key} {action} {tokens}"]
    if effect.state == "warm":
        pieces.append(f"{format_tokens(effect.uncached)} cached→fresh")
    else:
        pieces.append(CACHE_STATES[effect.state])
    pieces.append(price.cost().replace(" → ", "→"))
    if price.uncaches_more_than_it_saves:
        pieces.append("un-caches more than it saves")
    return pieces


def fit(pieces: list[str], width: int) -> str:
    line = ""
    for piece in pieces:
        candidate = f"{line} · {piece}" if line else piece
        if len(candidate) > width:
            break
        line = candidate
    return line or pieces[0][:width]


class ChangePriceLine(Static):
    """The price of the inspector's `p` and `d`, shown while the inspector has focus."""

    DEFAULT_CSS = """
    ChangePriceLine {
        height: auto;
        padding: 0 1;
        color: $text-muted;
        display: none;
    }
    """

    def __init__(self, inspector: ContextInspector, price: Callable[[ContextChange], ChangePrice],
                 *, id: str | None = None) -> None:  # noqa: A002
        super().__init__("", id=id)
        self.inspector = inspector
        self.price = price
        self._shown: Hashable = None

    def on_mount(self) -> None:
        self.set_interval(DELAY, self.look)

    def _key(self) -> Hashable:
        engine = self.inspector.engine
        targets = tuple(self.inspector.targets())
        states = []
        for item_id in targets:
            try:
                item = engine.get(item_id)
            except UnknownItem:
                continue
            states.append((item.state, item.pinned, item.content_hash))
        sent = engine.last_sent
        return (targets, tuple(states), engine.budget().counted, engine.model,
                sent.at if sent is not None else None, int(time.monotonic() // 15),
                self.inspector.has_focus, self.size.width)

    def look(self) -> None:
        """Work the lines out again if what they depend on changed."""
        key = self._key()
        if key == self._shown:
            return
        self._shown = key
        targets = self.inspector.targets()
        if not self.inspector.has_focus or not targets:
            self.display = False
            return
        try:
            items = [self.inspector.engine.get(item_id) for item_id in targets]
        except UnknownItem:
            return
        width = max(self.size.width - 2, 20)
        warning = Style(color=self.app.current_theme.warning or None, bold=True)
        lines = Text(no_wrap=True, overflow="ellipsis")
        for key_name, toggle in KEYS:
            price = self.price(ItemsChange(toggle_action(items, toggle), tuple(targets)))
            if lines:
                lines.append("\n")
            lines.append(fit(price_pieces(key_name, price), width),
                         style=warning if price.uncaches_more_than_it_saves else "")
        self.update(lines)
        self.display = True
