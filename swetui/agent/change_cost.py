"""The price of a change to the context, before it is made (issue 11, DESIGN §2): pinning,
unpinning, dropping, restoring or editing items, a compaction and a model switch, each as the
tokens it saves next to the tokens it turns from cached into fresh, and what the next send
costs without and with it.

The engine works out the tokens (`swetui.engine.change_price`); this prices them with the
session's `PriceBook` (genai-prices, the config's prices, $0 for local models).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from swetui.agent.cost import Cost, format_cost
from swetui.engine.cache import CacheState
from swetui.engine.change_price import ChangeEffect, NextRequest, change_effect
from swetui.engine.compaction import CompactionPlan, priced_folds
from swetui.engine.context import ContextEngine, Priced
from swetui.engine.items import ContextItem, ItemState
from swetui.providers.usage import Usage

ItemAction = Literal["pin", "unpin", "drop", "restore"]

OUT = (ItemState.DROPPED, ItemState.COMPACTED, ItemState.ARCHIVED)
"""States of items left out of the request, which `restore` brings back."""


@dataclass(frozen=True)
class ItemsChange:
    """Pin, unpin, drop or restore items."""

    action: ItemAction
    item_ids: tuple[str, ...]


@dataclass(frozen=True)
class EditChange:
    """Replace what is sent for an item by `text` (the original is kept)."""

    item_id: str
    text: str


@dataclass(frozen=True)
class CompactionChange:
    plan: CompactionPlan


@dataclass(frozen=True)
class ModelChange:
    spec: str


ContextChange = ItemsChange | EditChange | CompactionChange | ModelChange


def toggle_action(items: list[ContextItem], key: Literal["pin", "drop"]) -> ItemAction:
    """What the inspector's `p` or `d` does to `items`: pin (unpin when all are pinned),
    drop (restore when all are left out)."""
    if key == "pin":
        return "unpin" if items and all(item.pinned for item in items) else "pin"
    restore = items and all(item.state in OUT and not item.pinned for item in items)
    return "restore" if restore else "drop"


def _priced_items(engine: ContextEngine, change: ItemsChange) -> list[Priced]:
    priced = []
    for item_id in change.item_ids:
        item = engine.get(item_id)
        match change.action:
            case "pin":
                priced.append(engine.price(item, pinned=True))
            case "unpin":
                priced.append(engine.price(item, pinned=False))
            case "drop":
                priced.append(engine.price(item, state=ItemState.DROPPED, pinned=False))
            case "restore":
                priced.append(engine.price(item, state=ItemState.INCLUDED))
    return priced


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def describe(change: ContextChange) -> str:
    """`drop 2 items`, `edit i42`, `compact 14 items`, `switch to anthropic:…`."""
    match change:
        case ItemsChange(action=action, item_ids=ids):
            return f"{action} {_count(len(ids), 'item')}"
        case EditChange(item_id=item_id):
            return f"edit {item_id}"
        case CompactionChange(plan=plan):
            return f"compact {_count(len(plan.folds), 'item')}"
        case ModelChange(spec=spec):
            return f"switch to {spec}"


CACHE_STATES: dict[CacheState, str] = {
    "cold": "nothing sent yet", "expired": "the cache expired", "none": "no cache (offline)",
    "other-model": "the cache is another model's", "warm": "cached"}


@dataclass(frozen=True)
class ChangePrice:
    """A change's effect on the next request, priced."""

    what: str
    effect: ChangeEffect
    before: Cost
    """The next send as things are."""
    after: Cost
    """The next send with the change."""

    @property
    def uncaches_more_than_it_saves(self) -> bool:
        return self.effect.uncached > max(self.effect.saved, 0)

    def pieces(self) -> list[str]:
        """The line's parts, most important first (a narrow screen shows the first ones)."""
        effect = self.effect
        saved = effect.saved
        tokens = f"saves {saved:,} tokens" if saved >= 0 else f"adds {-saved:,} tokens"
        pieces = [f"{self.what}: {tokens}"]
        if effect.state == "warm":
            pieces.append(f"{effect.uncached:,} cached → fresh")
        else:
            pieces.append(f"{CACHE_STATES[effect.state]}: nothing cached to lose")
        pieces.append(f"next send {self.cost()}")
        if self.uncaches_more_than_it_saves:
            pieces.append("un-caches more than it saves")
        return pieces

    def cost(self) -> str:
        """`$0.0018 → $0.0166`; `$0 (local)` once when both are local."""
        before, after = format_cost(self.before), format_cost(self.after)
        return before if before == after and self.before.basis == "local" else \
            f"{before} → {after}"

    def line(self) -> str:
        return " · ".join(self.pieces())


def _bill(request: NextRequest) -> Usage:
    return Usage(input_tokens=request.total, cache_read_tokens=request.cached,
                 cache_write_tokens=request.written, measured=False)


def price_change(engine: ContextEngine, change: ContextChange, *, now: float,
                 cost: Callable[[str, Usage], Cost]) -> ChangePrice:
    """Work out `change` on the side (nothing changes) and price the next send without and
    with it; `cost(spec, usage)` prices a request (the session's `PriceBook.cost`)."""
    match change:
        case ItemsChange():
            effect = change_effect(engine, now=now, changes=_priced_items(engine, change))
        case EditChange(item_id=item_id, text=text):
            effect = change_effect(engine, now=now,
                                   changes=[engine.price_edit(item_id, text)])
        case CompactionChange(plan=plan):
            effect = change_effect(engine, now=now, changes=priced_folds(engine, plan),
                                   added=plan.created)
        case ModelChange(spec=spec):
            effect = change_effect(engine, now=now, model=spec)
    return ChangePrice(what=describe(change), effect=effect,
                       before=cost(engine.model, _bill(effect.before)),
                       after=cost(effect.model, _bill(effect.after)))
