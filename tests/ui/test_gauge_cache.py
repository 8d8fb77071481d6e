"""The gauge's cache line: the next request's expected-cached and fresh tokens, kept up to
date as the context changes, and the last turn's measured hit rate and cost."""

from __future__ import annotations

from time import monotonic

from swetui.agent import TurnFinished
from swetui.agent.cost import Cost
from swetui.engine.items import ContextItem, ItemKind, Layer
from swetui.providers.usage import Usage
from swetui.ui.widgets import BudgetGauge
from tests.ui.test_gauge import GaugeApp, build_engine
from tests.ui.waits import until

LAST = TurnFinished(turn=1, duration=2.0, input_tokens=49_540, output_tokens=77,
                    usage=Usage(input_tokens=49_540, cache_read_tokens=40_000,
                                cache_write_tokens=1_500, output_tokens=77),
                    cost=Cost(usd=0.0213, basis="genai-prices"))


def anthropic_engine():
    engine = build_engine(history_words=600, memory_words=400)
    engine.model = "anthropic:claude-sonnet-4-5"
    return engine


async def test_the_cache_line_follows_changes_and_shows_the_last_turn() -> None:
    engine = anthropic_engine()
    app = GaugeApp(engine)
    async with app.run_test(size=(40, 16)) as pilot:
        gauge = app.query_one(BudgetGauge)
        assert "cache" not in gauge.render().plain  # nothing sent yet: no line
        engine.note_sent(engine.assemble(), monotonic())
        gauge.turn_finished(LAST)
        engine.add(ContextItem(id="u2", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                               title="next", content="and then?", turn_created=2))
        await until(pilot, lambda: gauge.cache is not None and gauge.cache.state == "warm",
                    "the cache split was worked out")
        view = gauge.cache
        assert view is not None and view.cached > 0 and view.fresh > 0
        line = next(row for row in gauge.render().plain.splitlines() if "cache" in row)
        assert line.startswith("cache ") and "fresh" in line
        assert "last 81% hit" in line
        # Dropping the conversation un-caches it: the split moves at once.
        engine.drop("u1")
        await until(pilot, lambda: gauge.cache is not None and gauge.cache.cached < view.cached,
                    "the split moved")


async def test_the_expected_split_stays_readable_in_a_narrow_gauge() -> None:
    engine = anthropic_engine()
    app = GaugeApp(engine, compact=True)
    async with app.run_test(size=(40, 12)) as pilot:
        gauge = app.query_one(BudgetGauge)
        engine.note_sent(engine.assemble(), monotonic())
        gauge.turn_finished(LAST)
        await until(pilot, lambda: gauge.cache is not None, "the cache split was worked out")
        lines = gauge.render().plain.splitlines()
        line = next(row for row in lines if row.startswith("cache"))
        assert "fresh" in line and len(line) <= gauge.content_size.width
        assert "…" not in line  # whole pieces only
