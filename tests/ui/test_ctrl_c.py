"""ctrl+c in the full-screen app: the first interrupts the agent (or asks), the second in a
row quits; a selection in the prompt is copied instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.widgets.prompt import PromptInput
from tests.agent.scripted import ScriptedProvider, answer


def app_for(root: Path, provider: ScriptedProvider | None = None) -> SweTuiApp:
    root.mkdir(exist_ok=True)
    options = LaunchOptions(path=root, model="offline", watch=False)
    session = AgentSession.open(options, env={}, provider=provider)
    return SweTuiApp(session, options=options, watch=False)


async def until(pilot: Pilot[int], condition: Callable[[], bool]) -> None:
    """Let the app run until `condition` holds (bounded, so a failure fails, not hangs)."""
    for _ in range(10_000):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("the condition never held")


def messages(app: SweTuiApp) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_two_ctrl_c_in_a_row_quit(tmp_path: Path):
    app = app_for(tmp_path / "ws")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+c")
        assert app.is_running
        assert "Press ctrl+c again to quit (ctrl+q quits at once)." in messages(app)
        await pilot.press("x", "ctrl+c")  # another key in between: not twice in a row
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running
    assert app.return_code == 0


async def test_ctrl_c_interrupts_a_working_agent_then_quits(tmp_path: Path):
    provider = ScriptedProvider(answer("thinking for ever"), hang=True)
    app = app_for(tmp_path / "ws", provider)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.click(PromptInput)
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: app.session.busy)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.session.busy)
        assert app.is_running
        assert any(n.title == "Interrupted" for n in app._notifications)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_c_copies_a_selection_in_the_prompt(tmp_path: Path):
    app = app_for(tmp_path / "ws")
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.screen.query_one(PromptInput)
        prompt.focus()
        await pilot.press(*"copy me", "shift+home")
        assert prompt.selected_text == "copy me"
        await pilot.press("ctrl+c", "ctrl+c")
        assert app.is_running
        assert app.clipboard == "copy me"
