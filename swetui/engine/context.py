"""The context engine: the item set, its token upkeep, the user's edits and assembly.

Every change goes through `_replace`, which updates the per-layer totals by the changed item's
difference only, so the gauge costs O(layers) per change however large the context is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from swetui.engine.assembly import AssemblyResult, assemble
from swetui.engine.assembly_messages import MessageCache
from swetui.engine.blobs import BlobStore
from swetui.engine.budget import Budget, BudgetSettings, make_budget
from swetui.engine.bus import EventBus
from swetui.engine.cache import CacheView, Mark, SentPrefix, expect_cache
from swetui.engine.events import BudgetChanged, ItemsChanged
from swetui.engine.items import LAYER_ORDER, ContextItem, ItemKind, ItemState, Layer
from swetui.engine.tokens import MESSAGE_OVERHEAD, TokenCounter, content_hash
from swetui.secrets import redact as redact_secrets

Recorder = Callable[[ContextItem], object]


class UnknownItem(KeyError):
    """No item has that id."""

    def __str__(self) -> str:
        return f"no context item {self.args[0]!r}"


@dataclass(frozen=True, slots=True, eq=False)
class Priced:
    """A change to one item, priced by the engine (`ContextEngine.price`): the changed item,
    what the budget will charge for it, and the item it was made from. `commit` puts it in
    place without pricing it again, provided the item has not changed since."""

    item: ContextItem
    cost: int
    base: ContextItem
    engine: ContextEngine


class StaleChange(ValueError):
    """A priced change whose item changed since it was priced."""


class ContextEngine:
    """Holds the items in order and keeps the budget current as they change."""

    def __init__(self, budget: BudgetSettings | None = None, *, counter: TokenCounter | None = None,
                 bus: EventBus | None = None, blobs: BlobStore | None = None,
                 model: str = "", redact: Callable[[str], str] = redact_secrets) -> None:
        # `is not None`, not `or`: an empty BlobStore has len 0 and would be replaced.
        self.settings = budget if budget is not None else BudgetSettings()
        self.counter = counter if counter is not None else TokenCounter()
        self.bus = bus if bus is not None else EventBus()
        self.blobs = blobs if blobs is not None else BlobStore()
        self.model = model
        self.redact = redact
        """Applied to every item's content and title on the way in: known secret values
        never reach the request, the inspector or the session log."""
        self.turn = 0
        self.recorder: Recorder | None = None
        self._items: dict[str, ContextItem] = {}
        self._sent: dict[str, int] = {}
        self._layer_tokens: dict[Layer, int] = dict.fromkeys(LAYER_ORDER, 0)
        self.draft_tokens = 0
        self._measured: tuple[int, int] | None = None  # the last request: (measured, estimate)
        self._calibration: dict[str, float] = {}
        self._calibration_source: dict[str, str] = {}
        self._sequence = 0
        self._batch: list[str] | None = None
        self._messages: MessageCache = {}
        self._batch_reason = ""
        self.last_sent: SentPrefix | None = None
        """The stable prefix of the last request sent (what the provider may hold)."""

    def next_turn(self) -> int:
        """Start the next turn and return its number (the one place turns are counted)."""
        self.turn += 1
        return self.turn

    # -- reading -------------------------------------------------------------------------

    def __contains__(self, item_id: str) -> bool:
        return item_id in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[ContextItem]:
        return iter(list(self._items.values()))

    def get(self, item_id: str) -> ContextItem:
        try:
            return self._items[item_id]
        except KeyError:
            raise UnknownItem(item_id) from None

    def sent_tokens(self, item_id: str) -> int:
        """Tokens the item costs in the form it is sent now (0 when not sent)."""
        return self._sent.get(item_id, 0)

    def by_source(self, path: str) -> list[ContextItem]:
        return [item for item in self._items.values() if item.source.path == path]

    def budget(self) -> Budget:
        """The current budget: O(layers), never recounts."""
        tokens = dict(self._layer_tokens)
        tokens[Layer.HISTORY] += self.draft_tokens
        measured, estimate = self._measured or (None, None)
        return make_budget(tokens, self.settings, measured=measured, measured_estimate=estimate,
                           calibration=self._calibration.get(self.model),
                           calibration_source=self._calibration_source.get(self.model))

    def assemble(self, *, max_tokens: int | None = None, changes: Iterable[Priced] = (),
                 added: Iterable[ContextItem] = ()) -> AssemblyResult:
        """The exact next request, with attribution: what the inspector shows is what is sent.
        The answer may take up to 8,192 tokens, or the reserve when that is smaller (a small
        window). With `changes` (from `price` or `price_edit`) and `added` items: the request
        as it would be with them, worked out on the side (nothing changes)."""
        if max_tokens is None:
            reserve = self.settings.reserve
            max_tokens = min(8192, reserve) if reserve > 0 else 8192
        if len(self._messages) > 4 * len(self._items) + 64:
            self._messages.clear()  # edited items leave old messages behind; start afresh
        limit, reserve = self.settings.limit, self.settings.reserve
        ratio = self._calibration.get(self.model)
        if ratio and ratio > 0 and limit > reserve:
            # The model counts `ratio` tokens per estimated one: what fits is what fits for it.
            limit = reserve + int((limit - reserve) / ratio)
        items, costs = self._items, self._sent
        changes, added = list(changes), list(added)
        if changes or added:
            items, costs = dict(items), dict(costs)
            for change in changes:
                items[change.item.id], costs[change.item.id] = change.item, change.cost
            for item in map(self._prepare, added):
                items[item.id], costs[item.id] = item, self._sent_cost(item)
        return assemble(items.values(), limit=limit, reserve=reserve, costs=costs,
                        model=self.model, max_tokens=max_tokens, cache=self._messages)

    # -- the provider's cache -------------------------------------------------------------

    def note_sent(self, result: AssemblyResult, at: float) -> None:
        """`result` was sent at `at` (monotonic seconds): its stable prefix is what the
        provider is expected to have cached."""
        self.last_sent = SentPrefix(units=result.prefix, breakpoints=result.breakpoints,
                                     model=self.model, at=at)

    def restore_sent(self, marks: Iterable[Mark], model: str, at: float) -> None:
        """A send read back from the session log (`at`: when, in monotonic seconds)."""
        self.last_sent = SentPrefix(units=(), breakpoints=(), model=model, at=at,
                                     marks=tuple(marks))

    def cache_view(self, now: float, result: AssemblyResult | None = None,
                   model: str | None = None) -> CacheView:
        """Which part of the next request (`result`, assembled now when not given) is
        expected to be read from the cache if sent at `now` (to `model`, by default this
        engine's), and which is sent fresh."""
        result = result if result is not None else self.assemble()
        return expect_cache(self.last_sent, result.prefix, result.total,
                            model=self.model if model is None else model, now=now)

    # -- identity --------------------------------------------------------------------------

    def new_id(self, prefix: str = "i") -> str:
        """A fresh, stable, short id (`prefix` + sequence number)."""
        self._sequence += 1
        return f"{prefix}{self._sequence}"

    # -- changing --------------------------------------------------------------------------

    def add(self, item: ContextItem, *, reason: str = "added") -> ContextItem:
        """Add (or replace, by id) an item; its hash and tokens are computed here."""
        item = self._prepare(item)
        self._replace(item, reason)
        return item

    def add_many(self, items: Iterable[ContextItem], *, reason: str = "added") -> None:
        with self.batch(reason):
            for item in items:
                self.add(item, reason=reason)

    def update(self, item_id: str, *, reason: str = "changed", **changes: Any) -> ContextItem:
        """Change fields of an item (content, state, pinned, stub, payload, ...)."""
        current = self.get(item_id)
        if "content" not in changes and {"state", "pinned", "stub"} & changes.keys():
            changes["tokens"] = current.tokens
        item = current.with_fields(changes)
        if "content" in changes or ("payload" in changes and item.kind is ItemKind.TOOL_CALL):
            item = self._prepare(item, force=True)  # arguments are part of a call's cost
        self._replace(item, reason)
        return item

    def set_content(self, item_id: str, content: str, *,
                    reason: str = "content changed") -> ContextItem:
        return self.update(item_id, content=content, reason=reason)

    def pin(self, item_id: str) -> ContextItem:
        return self.update(item_id, pinned=True, reason="pinned")

    def unpin(self, item_id: str) -> ContextItem:
        return self.update(item_id, pinned=False, reason="unpinned")

    def drop(self, item_id: str) -> ContextItem:
        """Leave an item out of the request; it stays in the archive (pinned items unpin)."""
        return self.update(item_id, state=ItemState.DROPPED, pinned=False, reason="dropped")

    def restore(self, item_id: str) -> ContextItem:
        return self.update(item_id, state=ItemState.INCLUDED, reason="restored")

    def remove(self, item_id: str, *, reason: str = "removed") -> None:
        """Take a source item out of the set (a tool whose server stopped): it leaves the
        budget and the inspector. Conversation items are never removed, only dropped."""
        old = self._items.pop(item_id, None)
        if old is None:
            return
        self._layer_tokens[old.effective_layer] -= self._sent.pop(item_id, 0)
        if self._batch is not None:
            self._batch.append(item_id)
        else:
            self.bus.publish(ItemsChanged(ids=(item_id,), reason=reason))
            self.bus.publish(BudgetChanged(budget=self.budget()))

    def edit(self, item_id: str, text: str) -> ContextItem:
        """Replace what is sent for an item by the user's text; the original is kept."""
        change = self.price_edit(item_id, text)
        edited = change.item.original is not None
        self._replace(change.item, "edited" if edited else "edit reverted", change.cost)
        return change.item

    def price_edit(self, item_id: str, text: str) -> Priced:
        """What `edit(item_id, text)` would put in place, priced; nothing changes."""
        item = self.get(item_id)
        original = item.original if item.original is not None else item.content
        update = {"content": original, "original": None} if text == original else \
            {"content": text, "original": original}
        changed = self._prepare(item.model_copy(update=update), force=True)
        return Priced(changed, self._sent_cost(changed), item, self)

    def revert_edit(self, item_id: str) -> ContextItem:
        item = self.get(item_id)
        return item if item.original is None else self.edit(item_id, item.original)

    def mark_stale(self, item_id: str) -> ContextItem:
        return self.update(item_id, state=ItemState.STALE, reason="stale: changed on disk")

    def set_draft(self, text: str) -> Budget:
        """Count the prompt being typed, so the gauge moves as the user types."""
        self.draft_tokens = self.counter.count_message(text) if text else 0
        budget = self.budget()
        self.bus.publish(BudgetChanged(budget=budget))
        return budget

    def resize(self, settings: BudgetSettings) -> Budget:
        """Measure against new budgets (the window the server reported)."""
        self.settings = settings
        budget = self.budget()
        self.bus.publish(BudgetChanged(budget=budget))
        return budget

    def record_usage(self, measured_input: int, estimated_input: int) -> None:
        """The provider's real input-token count for the last request, and the per-model
        calibration ratio (measured / estimated)."""
        self._measured = (measured_input, estimated_input)
        if estimated_input > 0 and measured_input > 0:
            self._calibration[self.model] = measured_input / estimated_input
            self._calibration_source[self.model] = "usage"
        self.bus.publish(BudgetChanged(budget=self.budget()))

    def calibrate(self, ratio: float, source: str, model: str | None = None) -> None:
        """Set the model's calibration ratio (its tokens / the estimate), learned from
        `source` (a tokenize endpoint, or usage remembered from an earlier session)."""
        if ratio > 0:
            model = model if model is not None else self.model
            self._calibration[model] = ratio
            self._calibration_source[model] = source
            self.bus.publish(BudgetChanged(budget=self.budget()))

    def calibration_source(self, model: str | None = None) -> str | None:
        return self._calibration_source.get(model if model is not None else self.model)

    def calibration(self, model: str | None = None) -> float | None:
        return self._calibration.get(model if model is not None else self.model)

    @contextmanager
    def batch(self, reason: str = "changed") -> Iterator[None]:
        """Group changes: one ItemsChanged and one BudgetChanged at the end."""
        if self._batch is not None:
            yield
            return
        self._batch, self._batch_reason = [], reason
        try:
            yield
        finally:
            ids, self._batch = self._batch, None
            if ids:
                self.bus.publish(ItemsChanged(ids=tuple(dict.fromkeys(ids)), reason=reason))
                self.bus.publish(BudgetChanged(budget=self.budget()))

    def load(self, item: ContextItem) -> None:
        """Put back an item from a session log without recording it again."""
        if not item.content and item.content_hash:
            item = item.model_copy(update={"content": self.blobs.get(item.content_hash) or ""})
        recorder, self.recorder = self.recorder, None
        try:
            self._replace(self._prepare(item, force=True), "loaded")
        finally:
            self.recorder = recorder
        number = item.id.lstrip("abcdefghijklmnopqrstuvwxyz:-_.")
        if number.isdigit():
            self._sequence = max(self._sequence, int(number))

    # -- internals -------------------------------------------------------------------------

    def prepare(self, item: ContextItem) -> ContextItem:
        """`item` as `add` would hold it: secrets redacted, content hashed and counted
        (a compaction prepares what it creates once, when it plans)."""
        return self._prepare(item, force=True)

    def _prepare(self, item: ContextItem, *, force: bool = False) -> ContextItem:
        if item.content_hash and item.tokens and not force:
            return item
        content, title = self.redact(item.content), self.redact(item.title)
        digest = content_hash(content)
        tokens = self._cost_of(content, digest, item)
        return item.with_fields({"content": content, "title": title, "content_hash": digest,
                                 "tokens": tokens})

    def _cost_of(self, text: str, digest: str | None, item: ContextItem) -> int:
        """Tokens of `text` as this item's message, plus its tool-call arguments as sent."""
        tokens = self.counter.count(text, digest) + MESSAGE_OVERHEAD
        if item.kind is ItemKind.TOOL_CALL:
            arguments = item.sent_arguments()
            if arguments:
                tokens += self.counter.count(json.dumps(arguments, sort_keys=True))
        return tokens

    def _sent_cost(self, item: ContextItem) -> int:
        if not item.sent:
            return 0
        text = item.sent_text()
        if text is item.content:
            return item.tokens
        return self._cost_of(text, None, item)

    def cost_if(self, item: ContextItem, **changes: Any) -> int:
        """What the budget would charge for `item` with `changes` (state, stub, pinned):
        the same rule `price` applies, which compaction plans use."""
        return self.price(item, **changes).cost if changes else self._sent_cost(item)

    def price(self, item: ContextItem, **changes: Any) -> Priced:
        """`item` with `changes` (state, stub, pinned, folded; not its content) and its cost as
        the budget will charge it, ready to `commit`. Nothing changes until then."""
        if "content" in changes or "content_hash" in changes or "tokens" in changes:
            raise ValueError("price() changes how an item is sent, not its content")
        changed = item.with_fields(changes)
        if (item.kind is ItemKind.TOOL_CALL and "payload" in changes
                and changed.call.arguments != item.call.arguments):
            changed = self._prepare(changed, force=True)  # arguments are part of its cost
        return Priced(changed, self._sent_cost(changed), item, self)

    def commit(self, changes: Iterable[Priced], *, reason: str = "changed") -> None:
        """Put priced changes in place as one batch, without pricing them again (the
        per-layer totals move by each item's difference, exactly as `update` would)."""
        changes = list(changes)
        for change in changes:  # all or nothing
            if change.engine is not self or self._items.get(change.item.id) is not change.base:
                raise StaleChange(f"{change.item.id} changed since it was priced")
        with self.batch(reason):
            for change in changes:
                self._replace(change.item, reason, change.cost)

    def _replace(self, item: ContextItem, reason: str, cost: int | None = None) -> None:
        old = self._items.get(item.id)
        if old is not None:
            self._layer_tokens[old.effective_layer] -= self._sent.get(old.id, 0)
        if cost is None:
            cost = self._sent_cost(item)
        self._items[item.id] = item
        self._sent[item.id] = cost
        self._layer_tokens[item.effective_layer] += cost
        if self.recorder is not None:
            self.recorder(item)
        if self._batch is not None:
            self._batch.append(item.id)
        else:
            self.bus.publish(ItemsChanged(ids=(item.id,), reason=reason))
            self.bus.publish(BudgetChanged(budget=self.budget()))
