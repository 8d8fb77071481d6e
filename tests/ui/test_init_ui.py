"""`/init` on screen: it writes SWETUI.md into the memory layer, keeps an existing one unless
told `/init replace`, and says which happened."""

from __future__ import annotations

from pathlib import Path

from swetui.ui.app import SweTuiApp
from tests.ui.screen_text import screen_text
from tests.ui.waits import slash


async def test_init_writes_keeps_and_replaces(make_app, demo: Path) -> None:
    app: SweTuiApp = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await slash(pilot, "/init")
        assert "✓ Wrote" in screen_text(app) and "from a structural scan" in screen_text(app)
        assert "mem:SWETUI.md" in app.session.engine
        (demo / "SWETUI.md").write_text("# kept by hand\n")
        await slash(pilot, "/init")
        assert "SWETUI.md exists and is kept" in screen_text(app)
        assert (demo / "SWETUI.md").read_text() == "# kept by hand\n"
        await slash(pilot, "/init replace")
        assert "## Structure" in (demo / "SWETUI.md").read_text()
        assert "## Structure" in app.session.engine.get("mem:SWETUI.md").content
        assert not app.session.busy

