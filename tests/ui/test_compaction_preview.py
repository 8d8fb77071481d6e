"""A compaction is previewed before it is done: what folds, tokens before and after; enter
commits it, esc leaves the context as it was (/compact and `c` in the inspector)."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.events import CompactionFinished
from swetui.engine.items import ItemState
from swetui.ui.compaction_preview import CompactionPreview
from tests.ui.compaction_setup import long_session
from tests.ui.screen_text import screen_text
from tests.ui.waits import events_of, settle, submit, until


def _compactions(app) -> int:
    return events_of(app).count(CompactionFinished)


async def test_compact_shows_a_preview_and_esc_changes_nothing(make_app, demo: Path) -> None:
    app = make_app()
    await long_session(app, demo)
    async with app.run_test(size=(100, 30)) as pilot:
        before = app.session.engine.assemble().request.canonical_json()
        plan = app.session.preview_compaction()
        await submit(pilot, "/compact")
        await until(pilot, lambda: isinstance(app.screen, CompactionPreview), "the preview")
        text = screen_text(app)
        assert f"{plan.tokens_before:,} tokens" in text
        assert f"{plan.tokens_after:,} tokens" in text
        assert "enter compact" in text and "esc cancel" in text
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CompactionPreview), "closed")
        await until(pilot, lambda: "Compaction cancelled" in screen_text(app), "said so")
        assert app.session.engine.assemble().request.canonical_json() == before
        assert _compactions(app) == 0


async def test_enter_in_the_preview_compacts_to_the_figure_shown(make_app, demo: Path) -> None:
    app = make_app()
    await long_session(app, demo)
    async with app.run_test(size=(100, 30)) as pilot:
        plan = app.session.preview_compaction()
        await submit(pilot, "/compact")
        await until(pilot, lambda: isinstance(app.screen, CompactionPreview), "the preview")
        await pilot.press("enter")
        await until(pilot, lambda: _compactions(app) == 1, "the compaction ran")
        assert app.session.engine.budget().total == plan.tokens_after


async def test_c_in_the_inspector_previews_then_clears_the_selection(make_app,
                                                                   demo: Path) -> None:
    app = make_app()
    await long_session(app, demo)
    async with app.run_test(size=(100, 30)) as pilot:
        inspector = app.screen.inspector
        first = next(item for item in app.session.engine  # the oldest read's output
                     if item.kind.value == "tool_call" and item.state == ItemState.INCLUDED)
        inspector.selected = {first.id}
        await pilot.press("f4", "c")
        await until(pilot, lambda: isinstance(app.screen, CompactionPreview), "the preview")
        text = screen_text(app)
        assert "1 item " in text and "read_file" in text, text
        await pilot.press("enter")
        await until(pilot, lambda: _compactions(app) == 1, "the compaction ran")
        await settle(pilot)
        assert not inspector.selected
