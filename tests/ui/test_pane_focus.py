"""Typing is never lost: esc on any pane brings the keyboard back to the prompt (without
interrupting anything when nothing runs), and a printable key typed on a pane that has no use
for it goes to the prompt; a pane's own keys still do what they say."""

from __future__ import annotations

import pytest

from swetui.ui.app import SweTuiApp
from tests.ui.waits import until


def _on_prompt(app: SweTuiApp) -> bool:
    return app.screen.focused is app.screen.prompt.input


@pytest.mark.parametrize("size", [(140, 45), (80, 24)], ids=["140x45", "80x24"])
@pytest.mark.parametrize("pane", ["f2", "f3", "f4", "f5"])
async def test_esc_on_a_pane_returns_to_the_prompt(make_app, pane: str,
                                                   size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press(pane)
        await until(pilot, lambda: not _on_prompt(app), f"{pane} took the focus")
        await pilot.press("escape")
        await until(pilot, lambda: _on_prompt(app), "esc gave the prompt the keyboard back")
        assert not app.session.busy and app.screen.status.activity != "Interrupting…"


@pytest.mark.parametrize("pane", ["f2", "f3", "f5"])
async def test_typing_on_a_pane_without_a_use_for_the_keys_reaches_the_prompt(
        make_app, pane: str) -> None:
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press(pane)  # f5: the approvals pane with nothing pending
        await until(pilot, lambda: not _on_prompt(app), f"{pane} took the focus")
        await pilot.press("h", "i", "space", "y", "o", "u")
        await until(pilot, lambda: app.screen.prompt.input.text == "hi you",
                    "every key reached the prompt, the first one too")
        assert _on_prompt(app)


async def test_a_pane_keeps_its_own_keys(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        inspector = app.screen.inspector
        await pilot.press("f4")
        await until(pilot, lambda: app.screen.focused is inspector, "the inspector focused")
        await pilot.press("down", "space")  # select an item: the inspector's own key
        await until(pilot, lambda: len(inspector.selected) == 1, "an item was selected")
        await pilot.press("escape")  # the first esc clears the selection, in place
        await until(pilot, lambda: not inspector.selected, "esc cleared the selection")
        assert app.screen.focused is inspector
        await pilot.press("p")  # pins the item under the cursor; nothing typed
        await until(pilot, lambda: any(item.pinned for item in app.session.engine),
                    "p pinned the item")
        assert app.screen.prompt.input.text == ""
        await pilot.press("escape")
        await until(pilot, lambda: _on_prompt(app), "the second esc went to the prompt")
