"""`/handoff` on screen: the boundary is shown as what it is, not as a compaction that grew
the request."""

from __future__ import annotations

from pathlib import Path

from swetui.ui.app import SweTuiApp
from tests.ui.screen_text import screen_text
from tests.ui.waits import slash, submit, until, wait_idle


async def test_the_transcript_shows_a_handoff_as_a_boundary_not_a_compaction(
        make_app, demo: Path) -> None:
    app: SweTuiApp = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await submit(pilot, "list files")
        await wait_idle(app, pilot)
        await slash(pilot, "/handoff")
        await until(pilot, lambda: "Chunk 1 ended" in screen_text(app),
                    "the boundary shows in the transcript")
        text = screen_text(app)
        assert "1 turn)" in text and "archived behind the handoff" in text
        assert "Compacted" not in text and "%)" not in text
        assert (demo / ".swetui" / "handoffs" / f"{app.session.session_id}-1.json").exists()
