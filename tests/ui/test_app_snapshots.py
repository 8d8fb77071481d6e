"""Snapshots of the whole workspace screen in representative states."""

from __future__ import annotations

from pathlib import Path

from tests.ui.conftest import publish_finished, publish_mid_stream, stable_header, submit_pending
from tests.ui.waits import settle, submit, until


def test_empty_workspace(snap_compare, make_app) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(140, 40), run_before=before)


def test_mid_stream_with_reasoning_and_actions(snap_compare, make_app) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        publish_mid_stream(pilot.app)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(140, 40), run_before=before)


def test_finished_turn(snap_compare, make_app) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        publish_mid_stream(pilot.app)
        publish_finished(pilot.app)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(140, 40), run_before=before)


def test_pending_edit_with_diff(snap_compare, make_app, demo: Path) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        submit_pending(pilot.app, demo)
        await until(pilot, lambda: pilot.app.screen.header.pending == 1, "the edit is pending")
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(140, 40), run_before=before)


def test_gauge_over_threshold(snap_compare, make_app, demo: Path) -> None:
    (demo / "NOTES.md").write_text("design notes, " * 5500)

    async def before(pilot) -> None:
        stable_header(pilot.app)
        await submit(pilot, "@NOTES.md")
        await until(pilot, lambda: pilot.app.session.engine.by_source("NOTES.md"),
                    "NOTES.md is in the context")
        await settle(pilot)

    assert snap_compare(make_app(context_limit=20_000), terminal_size=(140, 40),
                        run_before=before)


def test_light_theme(snap_compare, make_app) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        publish_mid_stream(pilot.app)
        publish_finished(pilot.app)
        await settle(pilot)

    assert snap_compare(make_app(theme="swetui-light"), terminal_size=(140, 40),
                        run_before=before)


def test_small_terminal_80x24(snap_compare, make_app, demo: Path) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        publish_mid_stream(pilot.app)
        publish_finished(pilot.app)
        submit_pending(pilot.app, demo)
        await until(pilot, lambda: pilot.app.screen.header.pending == 1, "the edit is pending")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=before)


def test_too_small_terminal(snap_compare, make_app) -> None:
    assert snap_compare(make_app(), terminal_size=(40, 10))
