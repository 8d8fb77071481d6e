"""ctrl+c in the full-screen app: the first interrupts the agent (or asks), the second in a
row quits; a selection in the prompt is copied instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.widgets.prompt import PromptInput
from tests.agent.scripted import ScriptedProvider, answer
from tests.ui.waits import until

AGAIN = "Press ctrl+c again to quit (ctrl+q quits at once)."


def app_for(root: Path, provider: ScriptedProvider | None = None) -> SweTuiApp:
    root.mkdir(exist_ok=True)
    options = LaunchOptions(path=root, model="offline", watch=False)
    session = AgentSession.open(options, env={}, provider=provider)
    return SweTuiApp(session, options=options, watch=False)


def notices(app: SweTuiApp) -> list[tuple[str, str]]:
    """Every (title, message) the app shows from now on. Shown notifications expire after a
    few seconds, which a loaded machine can take between two lines of a test."""
    seen: list[tuple[str, str]] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        seen.append((str(kwargs.get("title", "")), str(message)))
        notify(message, *args, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return seen


def asked(seen: list[tuple[str, str]]) -> int:
    return sum(message == AGAIN for _, message in seen)


async def test_two_ctrl_c_in_a_row_quit(tmp_path: Path):
    app = app_for(tmp_path / "ws")
    seen = notices(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+c")
        await until(pilot, lambda: asked(seen) == 1, "the first ctrl+c asked")
        assert app.is_running
        await pilot.press("x", "ctrl+c")  # another key in between: not twice in a row
        await until(pilot, lambda: asked(seen) == 2, "it asked again instead of quitting")
        assert app.is_running
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the second in a row quit")
    assert app.return_code == 0


async def test_ctrl_c_interrupts_a_working_agent_then_quits(tmp_path: Path):
    provider = ScriptedProvider(answer("thinking for ever"), hang=True)
    app = app_for(tmp_path / "ws", provider)
    seen = notices(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.click(PromptInput)
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: app.session.busy, "the agent is working")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.session.busy, "the agent was interrupted")
        assert app.is_running
        assert ("Interrupted", AGAIN) in seen
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the second ctrl+c quit")


async def test_ctrl_c_copies_a_selection_in_the_prompt(tmp_path: Path):
    app = app_for(tmp_path / "ws")
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.screen.query_one(PromptInput)
        prompt.focus()
        await pilot.press(*"copy me", "shift+home")
        await until(pilot, lambda: prompt.selected_text == "copy me", "the text is selected")
        await pilot.press("ctrl+c", "ctrl+c")
        # Typing over the selection afterwards shows both ctrl+c were taken, and neither quit.
        await pilot.press("z")
        await until(pilot, lambda: prompt.text == "z", "typing replaced the selection")
        assert app.is_running
        assert app.clipboard == "copy me"
