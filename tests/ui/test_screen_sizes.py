"""The workspace at every size a newcomer meets it (140×45, 100×30, 80×24 and the 60×16
minimum), in the states that matter: empty, streaming an answer, an edit pending (its queue
focused), a compaction preview, and the help."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.ui.compaction_preview import CompactionPreview
from swetui.ui.screens.layout import SINGLE_WIDTH
from swetui.ui.widgets.transcript_entries import NoticeLine
from tests.ui.compaction_setup import long_session
from tests.ui.conftest import publish_mid_stream, stable_header, submit_pending
from tests.ui.waits import settle, submit, until

SIZES = [(140, 45), (100, 30), (80, 24), (60, 16)]
IDS = [f"{width}x{height}" for width, height in SIZES]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_empty_session(snap_compare, make_app, size: tuple[int, int]) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_streaming_answer(snap_compare, make_app, size: tuple[int, int]) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        publish_mid_stream(pilot.app)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_pending_edit(snap_compare, make_app, demo: Path, size: tuple[int, int]) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        submit_pending(pilot.app, demo)
        await until(pilot, lambda: pilot.app.screen.header.pending == 1, "the edit is pending")
        await pilot.press("f5")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_compaction_preview(snap_compare, make_app, demo: Path, size: tuple[int, int]) -> None:
    async def before(pilot) -> None:
        app = pilot.app
        stable_header(app)
        await long_session(app, demo)
        workspace = app.screen
        await settle(pilot)
        if size[0] >= SINGLE_WIDTH:
            # Behind the modal, the inspector's rows arrive as the turns ran: which one is
            # at its top varies from run to run; the preview is what this picture is about.
            await pilot.press("f7")
            await settle(pilot)
        await submit(pilot, "/compact")
        await until(pilot, lambda: isinstance(app.screen, CompactionPreview), "the preview")
        workspace.transcript.clear()  # its turns' durations differ from run to run
        await until(pilot, lambda: not workspace.transcript.children, "cleared")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_help(snap_compare, make_app, size: tuple[int, int]) -> None:
    async def before(pilot) -> None:
        stable_header(pilot.app)
        await pilot.press("f1")
        transcript = pilot.app.screen.transcript

        def help_end_shown() -> bool:
            ends = [line for line in transcript.query(NoticeLine)
                    if "Type @" in str(line.render())]
            return bool(ends) and transcript.region.contains_region(ends[0].region)

        await until(pilot, lambda: any("Type @" in str(line.render())
                                       for line in transcript.query(NoticeLine)), "the help")
        transcript.scroll_end(animate=False)
        await until(pilot, help_end_shown, "the end of the help is on screen")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=before)
