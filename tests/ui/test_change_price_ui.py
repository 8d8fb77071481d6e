"""The price of a change is on the screen where the change is made (issue 11, item 5): under
the focused inspector, what `d` and `p` would do to the highlighted item; in the compaction
preview, what the compaction un-caches next to what it saves.

The session's turns are real (offline); the model is then taken to be Anthropic's, with the
last request sent a moment ago, so the provider holds its prefix. The expected figures come
from the engine's budget: dropping the oldest tool result turns the whole history, read from
the cache, fresh (Anthropic reads back to its breakpoint after the memory)."""

from __future__ import annotations

import time
from pathlib import Path

from swetui.engine.items import ItemKind, ItemState, Layer
from swetui.ui.app import SweTuiApp
from swetui.ui.compaction_preview import CompactionPreview
from swetui.ui.widgets.gauge import format_tokens
from tests.ui.compaction_setup import long_session
from tests.ui.screen_text import screen_text
from tests.ui.waits import submit, until

SONNET = "anthropic:claude-sonnet-4-5"


def with_memory(demo: Path) -> None:
    """Project memory long enough that the prefix up to it passes the 1,024 tokens Anthropic
    caches at least (else a change anywhere un-caches everything)."""
    (demo / "AGENTS.md").write_text("".join(f"- rule {n}: keep it tidy\n" for n in range(200)))


def sent_as_anthropic(app: SweTuiApp) -> int:
    """Price the session as Anthropic's, its last request sent now; the history's tokens."""
    engine = app.session.engine
    engine.model = SONNET
    engine.note_sent(engine.assemble(), time.monotonic())
    return next(row.tokens for row in engine.budget().layers if row.name is Layer.HISTORY)


async def test_the_inspector_says_what_d_would_do_before_it_is_pressed(make_app,
                                                                       demo: Path) -> None:
    with_memory(demo)
    app = make_app()
    await long_session(app, demo, turns=3)
    async with app.run_test(size=(140, 45)) as pilot:
        history = sent_as_anthropic(app)
        engine = app.session.engine
        oldest = next(item for item in engine if item.kind is ItemKind.TOOL_CALL)
        saved = engine.sent_tokens(oldest.id) - engine.cost_if(
            oldest, state=ItemState.DROPPED, pinned=False)
        line = app.screen.change_price
        assert not line.display  # only while the inspector has focus
        await pilot.press("f4")
        app.screen.inspector.move_to(oldest.id)
        expected = f"d drop −{format_tokens(saved)} · {format_tokens(history)} cached→fresh"
        await until(pilot, lambda: expected in screen_text(app), expected)
        assert "p pin ±0" in screen_text(app)
        await pilot.press("d")  # the figure shown is what happened
        await until(pilot, lambda: engine.get(oldest.id).state is ItemState.DROPPED, "dropped")
        await until(pilot, lambda: "d restore +" in screen_text(app), "restore priced next")


async def test_the_compaction_preview_says_what_it_uncaches(make_app, demo: Path) -> None:
    with_memory(demo)
    app = make_app()
    await long_session(app, demo)
    async with app.run_test(size=(100, 30)) as pilot:
        history = sent_as_anthropic(app)
        plan = app.session.preview_compaction()
        await submit(pilot, "/compact")
        await until(pilot, lambda: isinstance(app.screen, CompactionPreview), "the preview")
        text = screen_text(app)
        saved = plan.tokens_before - plan.tokens_after
        assert f"un-caches {history:,} tokens" in " ".join(text.split())
        assert "next send $" in " ".join(text.split())
        if history > saved:
            assert "it un-caches more tokens than it saves" in text
        await pilot.press("escape")


async def test_the_editor_prices_the_edit_as_it_is_typed(make_app, demo: Path) -> None:
    with_memory(demo)
    app = make_app()
    await long_session(app, demo, turns=3)
    async with app.run_test(size=(140, 45)) as pilot:
        history = sent_as_anthropic(app)
        engine = app.session.engine
        oldest = next(item for item in engine if item.kind is ItemKind.TOOL_CALL)
        await pilot.press("f4")
        app.screen.inspector.move_to(oldest.id)
        await pilot.press("e")
        await until(pilot, lambda: "saving: edit" in screen_text(app), "the edit's price")
        assert "saves 0 tokens" in screen_text(app)  # nothing typed yet
        area = app.screen.query_one("TextArea")
        area.text = "short"
        before = engine.sent_tokens(oldest.id)
        engine_copy_cost = engine.price_edit(oldest.id, "short").cost
        expected = f"saves {before - engine_copy_cost:,} tokens · {history:,} cached → fresh"
        await until(pilot, lambda: expected in " ".join(screen_text(app).split()), expected)


async def test_a_model_switch_says_what_it_uncaches_and_waits_for_a_second_ask(
        make_app, demo: Path) -> None:
    with_memory(demo)
    app = make_app()
    await long_session(app, demo, turns=2)
    async with app.run_test(size=(140, 45)) as pilot:
        sent_as_anthropic(app)
        app.session.model = SONNET
        engine = app.session.engine
        notes = sum(engine.sent_tokens(item.id) for item in engine  # sent after the newest
                    if item.kind is ItemKind.SESSION_NOTES)         # message: never cached
        cached = engine.budget().counted - notes
        await submit(pilot, "/model offline")
        expected = f"switch to offline: saves 0 tokens · {cached:,} cached → fresh"
        await until(pilot, lambda: expected in " ".join(screen_text(app).split()), expected)
        assert app.session.model == SONNET  # not yet
        await submit(pilot, "/model offline")
        await until(pilot, lambda: app.session.model == "offline", "switched")
