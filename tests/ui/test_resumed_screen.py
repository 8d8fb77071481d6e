"""What a person saw comes back with --continue: the answers of slash commands and the theme
they picked; and /stats reads as words, not Python values."""

from __future__ import annotations

from pathlib import Path

from swetui.ui.widgets.transcript_entries import NoticeLine
from tests.ui.screen_text import screen_text
from tests.ui.waits import palette, settle, slash, submit, until, wait_idle


def _notices(app) -> str:
    return "\n".join(str(line.render()) for line in app.screen.transcript.query(NoticeLine))


async def test_stats_says_yes_and_no(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await slash(pilot, "/stats")
        text = screen_text(app)
        assert "saved to disk" in text and "True" not in text and "False" not in text, text


async def test_continue_brings_back_command_answers_and_the_theme(make_app,
                                                                  demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await submit(pilot, "read README.md")
        await wait_idle(app, pilot)
        await slash(pilot, "/context")
        await slash(pilot, "/rules")
        await palette(pilot, "swetui-lig", expect="swetui-light")
        await until(pilot, lambda: app.theme == "swetui-light", "the light theme is on")
        assert "Next request" in screen_text(app)
    again = make_app(continue_last=True)
    async with again.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: "Next request" in _notices(again),
                    "the /context answer is back")
        await settle(pilot)
        notices = _notices(again)
        assert "› /context" in notices and "reserve" in notices
        assert "No remembered approval rules" in notices
        assert notices.index("› /context") < notices.index("› /rules")
        assert again.theme == "swetui-light"
        # It says which session it continued (the newest may be a headless run).
        assert f"continuing session {app.session.session_id}: “read README.md”" in notices
