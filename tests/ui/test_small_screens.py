"""Small terminals (80×24 and the minimum): what is asked for approval can be read, every pane
maximises, nothing runs off the screen."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.diffs import compute_hunks, unified_diff
from swetui.ui.screens.main import WorkspaceScreen
from tests.ui.conftest import pending_edit, submit_pending
from tests.ui.screen_text import screen_text
from tests.ui.waits import settle, until

LONG = "".join(f"line {n}\n" for n in range(1, 61))


async def _pending(pilot, app, demo: Path) -> WorkspaceScreen:
    screen = app.screen
    submit_pending(app, demo)
    await until(pilot, lambda: screen.header.pending == 1, "the edit is pending")
    await settle(pilot)
    return screen


async def test_80x24_focused_queue_shows_the_edit_lines(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _pending(pilot, app, demo)
        await pilot.press("f5")
        await settle(pilot)
        text = screen_text(app)
        assert "-hello there" in text and "+world there" in text, text
        assert text.count("Approvals") == 1, text  # one title, not a second one inside


async def test_f8_maximises_every_pane_and_restores(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _pending(pilot, app, demo)
        for key, pane in (("f2", screen.transcript), ("f3", screen.gauge),
                          ("f4", screen.inspector), ("f5", screen.approvals)):
            await pilot.press(key, "f8")
            await until(pilot, lambda pane=pane: screen.maximized is pane,
                        f"f8 maximised {pane.id}")
            await pilot.press("f8")
            await until(pilot, lambda: screen.maximized is None, "f8 restored the layout")


async def test_the_diff_scrolls_with_page_keys(make_app, demo: Path) -> None:
    (demo / "long.txt").write_text(LONG)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        new = LONG.replace("line 5\n", "".join(f"new {n}\n" for n in range(30))) \
            .replace("line 50\n", "line fifty\n")
        hunks = compute_hunks(LONG, new)
        action = pending_edit(demo).model_copy(update={
            "path": "long.txt", "old_content": LONG, "new_content": new, "hunks": hunks,
            "diff": unified_diff(LONG, new, "long.txt", hunks), "summary": "edit long.txt"})
        app.session.queue.submit(action)
        await until(pilot, lambda: screen.header.pending == 1, "the edit is pending")
        await pilot.press("f5")
        await settle(pilot)
        assert "+line fifty" not in screen_text(app)
        diff = screen.approvals.preview.diff
        for _ in range(4):
            await pilot.press("pagedown")
        await until(pilot, lambda: diff.scroll_y > 0, "the diff scrolled")
        assert "+line fifty" in screen_text(app)


def _panes_off_screen(screen: WorkspaceScreen) -> list[str]:
    """Panes shown with a part past the terminal's edge."""
    width, height = screen.app.size
    panes = (screen.header, screen.transcript, screen.gauge, screen.inspector,
             screen.approvals, screen.prompt, screen.query_one("#footer"))
    return [f"{pane.id} {pane.region}" for pane in panes
            if pane.display and pane.region.area
            and (pane.region.right > width or pane.region.bottom > height)]


async def test_the_minimum_size_fits_one_pane_at_a_time(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(60, 16)) as pilot:
        screen = await _pending(pilot, app, demo)
        assert not _panes_off_screen(screen)
        assert screen.transcript.region.area and not screen.approvals.region.area
        await pilot.press("f5")
        await settle(pilot)
        assert not _panes_off_screen(screen)
        text = screen_text(app)
        assert "-hello there" in text and "+world there" in text, text
        assert not screen.transcript.region.area  # the queue has the column to itself
        for key, pane in (("f3", screen.gauge), ("f4", screen.inspector),
                          ("f2", screen.transcript)):
            await pilot.press(key)
            await until(pilot, lambda pane=pane: pane.region.area
                        and screen._within(screen.focused, pane), f"{key} showed {pane.id}")
            assert not _panes_off_screen(screen)


async def test_the_pending_badge_reads_whole_at_every_width(make_app, demo: Path) -> None:
    for size, badge in (((60, 16), "⚑ 1 approval pending (F5)"),
                        ((80, 24), "⚑ 1 approval pending (F5)"),
                        ((140, 45), "⚑ 1 approval pending (F5)")):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await _pending(pilot, app, demo)
            header = screen_text(app).splitlines()[0]
            assert badge in header, (size, header)
            assert "swetui" in header and "mode ask" in header, (size, header)
