"""What a compaction will do, before it is done: the items it folds, the items it creates and
the tokens the budget will show afterwards (so a manual compaction can be previewed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from swetui.engine.context import ContextEngine, Priced
from swetui.engine.items import ContextItem, FoldRecord, ItemState


@dataclass(slots=True)
class Fold:
    """One item the compaction folds: its new state and stub, and what it was before.
    (A plain dataclass: a large compaction makes thousands of them.)"""

    id: str
    title: str
    previous_state: ItemState
    content_hash: str
    """The content the plan was made for: applying refuses a plan the item outgrew."""
    tokens_before: int
    tokens_after: int
    state: ItemState = ItemState.COMPACTED
    stub: str | None = None
    previous_stub: str | None = None


class CompactionPlan(BaseModel):
    """A compaction, previewable: apply it with `apply(engine, plan, trigger)`."""

    compaction_id: str
    compactor: str = "structural"
    folds: list[Fold] = Field(default_factory=list)
    created: list[ContextItem] = Field(default_factory=list)
    """New items: exchange headers and summaries, the running summary, the reference index."""
    tokens_before: int = 0
    tokens_after: int = 0
    """Exactly the budget total the gauge will show once the plan is applied."""
    retained: list[str] = Field(default_factory=list)
    """Every path and identifier of the folded items (all present in the created items)."""
    notes: list[str] = Field(default_factory=list)
    instructions: str | None = None
    planned_ms: float = 0.0
    _priced: dict[str, Priced] = PrivateAttr(default_factory=dict)
    """Each fold's item as it will be sent, priced when planned: `apply` puts these in place
    (no second copy, no recount) when neither the item nor the fold changed since."""

    @property
    def reduction(self) -> float:
        """Percent of the request's tokens the compaction saves."""
        if not self.tokens_before:
            return 0.0
        return 100.0 * (self.tokens_before - self.tokens_after) / self.tokens_before

    @property
    def empty(self) -> bool:
        return not self.folds

    def describe(self) -> str:
        """One line for a preview: what folds and the tokens after."""
        if self.empty:
            return "Nothing to compact. " + " ".join(self.notes)
        return (f"{len(self.folds)} items fold into {len(self.created)} new ones: "
                f"{self.tokens_before:,} → {self.tokens_after:,} tokens "
                f"({signed_percent(-self.reduction)})")


def signed_percent(change: float) -> str:
    """A change in percent with its own sign: "−12%", "+1%", "0%" (never "−-1%")."""
    rounded = round(change)
    if rounded == 0:
        return "0%"
    return f"{'+' if rounded > 0 else '−'}{abs(rounded)}%"


_SHARED: dict[tuple[str, ItemState], FoldRecord] = {}
"""Records with no stub and no earlier record, by compaction and state before: most folds
of a compaction have the same one, and a record is frozen, so they share it."""


def fold_record(compaction_id: str, fold: Fold,
                previous: FoldRecord | None = None) -> FoldRecord:
    """What a folded item keeps to be undone: the compaction, its state and stub before,
    and the record of the compaction that had folded it before (a stub later archived),
    which undo puts back."""
    if fold.previous_stub is None and previous is None:
        key = (compaction_id, fold.previous_state)
        shared = _SHARED.get(key)
        if shared is None:
            if len(_SHARED) >= 64:
                _SHARED.clear()
            shared = _SHARED[key] = FoldRecord(compaction_id=compaction_id,
                                               state=fold.previous_state)
        return shared
    return FoldRecord(compaction_id=compaction_id, state=fold.previous_state,
                      stub=fold.previous_stub, previous=previous)


def folded_changes(compaction_id: str, fold: Fold, item: ContextItem) -> dict[str, Any]:
    """The changes that fold `item` as `fold` says (what `apply` makes of it)."""
    return {"state": fold.state, "stub": fold.stub,
            "folded": fold_record(compaction_id, fold, item.folded)}


def price_fold(engine: ContextEngine, item: ContextItem, stub: str | None,
               compaction_id: str,
               state: ItemState = ItemState.COMPACTED) -> tuple[Fold, Priced]:
    """A fold of `item` to `state` (compacted, or archived) with `stub`, and the folded item
    priced by the engine (its cost is the fold's `tokens_after`; `apply` reuses it)."""
    fold = Fold(id=item.id, title=item.title, stub=stub, previous_state=item.state,
                previous_stub=item.stub, content_hash=item.content_hash,
                state=state, tokens_before=engine.sent_tokens(item.id),
                tokens_after=0)
    priced = engine.price(item, **folded_changes(compaction_id, fold, item))
    fold.tokens_after = priced.cost
    return fold, priced


def created_cost(engine: ContextEngine, item: ContextItem) -> int:
    """What a new item (prepared by the engine: hashed and counted) will cost once added
    in its state."""
    return engine.cost_if(item)


def settle_tokens(engine: ContextEngine, plan: CompactionPlan) -> None:
    """Fill in `tokens_before` and `tokens_after` from the folds and created items."""
    before = engine.budget().total
    delta = sum(fold.tokens_after - fold.tokens_before for fold in plan.folds)
    delta += sum(created_cost(engine, item) for item in plan.created)
    plan.tokens_before = before
    plan.tokens_after = before + delta
