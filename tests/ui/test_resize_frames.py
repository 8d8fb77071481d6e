"""After the window shrinks, the transcript still shows its newest lines: it used to keep
showing its top, the newest answer out of sight (seen in tmux after a resize under load)."""

from __future__ import annotations

import pytest
from textual.geometry import Size

from swetui.ui.app import SweTuiApp
from tests.ui.screen_text import screen_text
from tests.ui.waits import settle, submit, until, wait_idle

SHRINKS = [((140, 45), (80, 24)), ((140, 45), (100, 30)), ((100, 30), (60, 16))]


async def _a_turn(app: SweTuiApp, pilot) -> None:
    await submit(pilot, "read README.md")
    await wait_idle(app, pilot)


@pytest.mark.parametrize(("start", "end"), SHRINKS,
                         ids=[f"{a[0]}x{a[1]}-to-{b[0]}x{b[1]}" for a, b in SHRINKS])
async def test_a_smaller_window_still_shows_the_newest_lines(
        make_app, start: tuple[int, int], end: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=start) as pilot:
        await _a_turn(app, pilot)
        assert "✓ Done" in screen_text(app)
        await pilot.resize_terminal(*end)
        await until(pilot, lambda: app.screen.size == Size(*end), "the screen resized")
        await settle(pilot)
        await until(pilot, lambda: "✓ Done" in screen_text(app),
                    "the done line is on screen at the new size")
