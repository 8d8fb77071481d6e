"""After compactions and an undo the screen stays tidy: each thing said once, one running
summary in the inspector, and a history count that falls when history folds."""

from __future__ import annotations

import re
from pathlib import Path

from swetui.engine.events import CompactionFinished
from swetui.engine.items import ItemKind, Layer
from swetui.ui.app import SweTuiApp
from swetui.ui.widgets.inspector_rows import HeaderRow
from tests.ui.compaction_setup import long_session
from tests.ui.screen_text import screen_text
from tests.ui.waits import events_of, settle, slash, until


async def _history_header(pilot, app: SweTuiApp) -> str:
    # The cursor goes to the first history item, as a user scrolls there: the header above it
    # is then on screen whatever the inspector's height.
    inspector = app.screen.inspector
    history = inspector.rows.items_in(Layer.HISTORY)
    if history:
        inspector.move_to(history[0])
    await settle(pilot)
    rows = screen_text(app).splitlines()
    found = [row for row in rows if "History ·" in row]
    assert found, "\n".join(rows)
    return found[0]


def _summary_rows(app: SweTuiApp) -> list[str]:
    inspector = app.screen.inspector
    engine = app.session.engine
    return [row for row in inspector.rows.rows if isinstance(row, str)
            and engine.get(row).kind is ItemKind.SUMMARY]


async def _compact(pilot, app: SweTuiApp, count: int) -> None:
    await app.session.compact("manual")
    await until(pilot, lambda: events_of(app).count(CompactionFinished) == count,
                f"compaction {count} ran")
    await settle(pilot)


async def test_undo_and_compactions_leave_no_clutter(make_app, demo: Path) -> None:
    app = make_app()
    await long_session(app, demo)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        before = await _history_header(pilot, app)
        assert re.search(r"History · 24 items", before), before
        await _compact(pilot, app, 1)
        after = await _history_header(pilot, app)
        counted = re.search(r"History · (\d+) sent · \d+ compacted", after)
        assert counted is not None, after
        sent = int(counted.group(1))
        assert sent < 24, after  # folding shrinks what is sent; the count says so
        for turn in range(3):
            await app.session.send(f"read big.py (more {turn})")
        await _compact(pilot, app, 2)
        assert len(_summary_rows(app)) == 1  # the newer running summary, not both
        await pilot.press("f6")
        await slash(pilot, "/undo compaction")
        await until(pilot, lambda: "Compaction undone" in screen_text(app), "the undo said so")
        await settle(pilot)
        assert screen_text(app).count("Compaction undone") == 1, screen_text(app)
        assert len(_summary_rows(app)) == 1
        # What the undone compaction made is gone from the list (it stays in the archive).
        history = app.screen.inspector.rows.items_in(Layer.HISTORY)
        engine = app.session.engine
        undone = [item.id for item in engine if getattr(item.payload, "undone", False)]
        assert undone and not set(undone) & set(history)
        assert HeaderRow(Layer.SUMMARY) in app.screen.inspector.rows.rows
