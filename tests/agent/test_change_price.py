"""The price of a change before it is made (issue 11, item 5): what pinning, dropping,
restoring, editing, compacting and switching the model do to the next request's tokens, to
the part the provider reads from its cache, and to what the next send costs.

Every expected figure is worked out without the code under test: the change is then made for
real and the engine's budget (its per-layer totals) gives the tokens; which part Anthropic
reads back follows from its breakpoints (the system prompt, the memory, the end of the
earlier turns, the newest message); the cost comes from genai-prices called directly."""

from __future__ import annotations

from genai_prices import Usage as PricedUsage
from genai_prices import calc_price

from swetui.agent.change_cost import (
    CompactionChange,
    EditChange,
    ItemsChange,
    ModelChange,
    price_change,
    toggle_action,
)
from swetui.agent.pricing import PriceBook
from swetui.engine.compaction import StructuralCompactor, apply
from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemState, Layer
from tests.engine.test_cache import engine_with

SONNET = "anthropic:claude-sonnet-4-5"
PRICES = PriceBook({}, {})


def layers(engine: ContextEngine) -> dict[Layer, int]:
    return {row.name: row.tokens for row in engine.budget().layers}


def sonnet(total: int, read: int, written: int, model: str = "claude-sonnet-4-5") -> float:
    usage = PricedUsage(input_tokens=total, cache_read_tokens=read, cache_write_tokens=written)
    return float(calc_price(usage, model, provider_id="anthropic").total_price)


def warm(turns: int = 4, model: str = SONNET) -> ContextEngine:
    """A session whose last request was sent a second ago (the provider holds its prefix)."""
    engine = engine_with(turns, model)
    engine.note_sent(engine.assemble(), at=0.0)
    return engine


def test_dropping_an_item_in_the_middle_uncaches_everything_after_the_memory():
    engine = warm()
    tokens = layers(engine)
    stable = tokens[Layer.SYSTEM] + tokens[Layer.MEMORY]
    sent = stable + tokens[Layer.HISTORY]
    price = price_change(engine, ItemsChange("drop", ("c2",)), now=1.0, cost=PRICES.cost)
    engine.drop("c2")  # now for real: the budget says what the request became
    after = engine.budget().counted
    effect = price.effect
    assert effect.before.total == sent and effect.after.total == after
    assert effect.saved == sent - after > 0
    # Anthropic reads back up to its last breakpoint before the change: the memory.
    assert effect.before.cached == sent and effect.after.cached == stable
    assert effect.uncached == tokens[Layer.HISTORY]
    # ... and writes the rest of the stable prefix again (up to the newest message).
    assert effect.after.written == after - stable and effect.before.written == 0
    assert price.before.usd is not None and price.after.usd is not None
    assert abs(price.before.usd - sonnet(sent, sent, 0)) < 1e-9
    assert abs(price.after.usd - sonnet(after, stable, after - stable)) < 1e-9
    assert price.uncaches_more_than_it_saves
    line = price.line()
    assert f"saves {sent - after:,} tokens" in line
    assert f"{tokens[Layer.HISTORY]:,} cached → fresh" in line
    assert "un-caches more than it saves" in line


def test_an_openai_compatible_server_keeps_the_prefix_up_to_the_change():
    engine = warm(model="openai:gpt-4o")
    items = [item for item in engine if item.sent]
    position = [item.id for item in items].index("c3")
    kept = sum(engine.sent_tokens(item.id) for item in items[:position])
    sent = engine.budget().counted
    price = price_change(engine, ItemsChange("drop", ("c3",)), now=1.0, cost=PRICES.cost)
    assert price.effect.before.cached == sent and price.effect.after.cached == kept
    assert price.effect.uncached == sent - kept
    assert price.effect.after.written == 0  # it caches on its own, no write price


def test_pinning_a_dropped_item_adds_its_tokens_and_uncaches_only_its_turn():
    engine = warm()
    engine.drop("c4")
    engine.note_sent(engine.assemble(), at=0.0)  # sent without it
    before = engine.budget().counted
    newest_turn = sum(engine.sent_tokens(item_id) for item_id in ("u4", "a4", "c4"))
    price = price_change(engine, ItemsChange("pin", ("c4",)), now=1.0, cost=PRICES.cost)
    engine.pin("c4")
    added = engine.budget().counted - before
    assert added > 0 and price.effect.saved == -added
    assert f"adds {added:,} tokens" in price.line()
    # A tool result stays beside its call: the newest turn changes, what was cached at the
    # end of the earlier turns is read back.
    assert price.effect.uncached == newest_turn
    assert price.effect.after.cached == before - newest_turn


def test_an_edit_is_priced_as_the_text_typed():
    engine = warm()
    text = "short"
    price = price_change(engine, EditChange("c1", text), now=1.0, cost=PRICES.cost)
    before = engine.budget().counted
    engine.edit("c1", text)
    assert price.effect.saved == before - engine.budget().counted > 0
    # Turn 1 is the first of the history: only the system prompt and memory stay cached.
    tokens = layers(engine)
    assert price.effect.after.cached == tokens[Layer.SYSTEM] + tokens[Layer.MEMORY]


def test_a_cold_or_expired_cache_has_nothing_to_lose():
    engine = engine_with(4)  # nothing sent yet
    price = price_change(engine, ItemsChange("drop", ("c2",)), now=1.0, cost=PRICES.cost)
    assert price.effect.state == "cold" and price.effect.uncached == 0
    assert "nothing sent yet: nothing cached to lose" in price.line()
    engine = warm()
    price = price_change(engine, ItemsChange("drop", ("c2",)), now=10_000.0, cost=PRICES.cost)
    assert price.effect.state == "expired" and price.effect.uncached == 0


def test_a_model_switch_uncaches_the_whole_prefix_and_is_priced_at_the_new_model():
    engine = warm()
    sent = engine.budget().counted
    price = price_change(engine, ModelChange("anthropic:claude-opus-4-1"), now=1.0,
                         cost=PRICES.cost)
    assert price.effect.uncached == sent and price.effect.saved == 0
    assert price.after.usd is not None
    assert abs(price.after.usd - sonnet(sent, 0, sent, "claude-opus-4-1")) < 1e-9
    assert price.uncaches_more_than_it_saves


def test_a_compaction_preview_is_priced_as_it_will_be_applied():
    engine = warm(12)
    plan = StructuralCompactor().plan(engine)
    assert plan.folds
    price = price_change(engine, CompactionChange(plan), now=1.0, cost=PRICES.cost)
    before = engine.budget().counted
    apply(engine, plan)
    after = engine.budget().counted
    assert price.effect.before.total == before and price.effect.after.total == after
    assert price.effect.saved == before - after == plan.tokens_before - plan.tokens_after
    # It folds the oldest turns: only the system prompt and memory are read back.
    assert engine.get("c1").state is not ItemState.INCLUDED
    tokens = layers(engine)
    assert price.effect.after.cached == tokens[Layer.SYSTEM] + tokens[Layer.MEMORY]
    assert price.effect.uncached == price.effect.before.cached - price.effect.after.cached > 0


def test_local_models_cost_nothing_and_say_so():
    engine = warm(model="offline")
    price = price_change(engine, ItemsChange("drop", ("c2",)), now=1.0, cost=PRICES.cost)
    assert price.before.usd == price.after.usd == 0
    assert "next send $0 (local)" in price.line() and price.effect.state == "none"


def test_the_keys_price_what_they_would_do():
    engine = warm()
    items = [engine.get("c2"), engine.get("c3")]
    assert toggle_action(items, "pin") == "pin" and toggle_action(items, "drop") == "drop"
    engine.pin("c2")
    assert toggle_action([engine.get("c2")], "pin") == "unpin"
    engine.drop("c3")
    assert toggle_action([engine.get("c3")], "drop") == "restore"
    assert engine.get("c3").state is ItemState.DROPPED
