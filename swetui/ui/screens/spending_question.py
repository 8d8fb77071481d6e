"""Ask before a model call that would take the session past its spending cap (issue 11,
item 7): enter sends it (and the rest of this turn's calls), esc does not (the turn ends
saying so; the question stays in the session)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from swetui.agent import SpendCheck, SpendingPrompt, format_cost, format_usd


class SpendingQuestion(ModalScreen[bool]):
    """Dismisses True to send anyway (enter), False not to (esc)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("enter", "send", "Send anyway", priority=True),
        Binding("escape", "stop", "Don't send"),
    ]

    def __init__(self, check: SpendCheck) -> None:
        super().__init__()
        self.check = check

    def compose(self) -> ComposeResult:
        check = self.check
        with Vertical(id="spending-dialog"):
            yield Label(f"Past the spending cap of {format_usd(check.cap)}?",
                        id="spending-title")
            yield Static(f"Spent so far: {format_cost(check.spent)}\n"
                         f"The next model call: about {format_cost(check.call)}",
                         id="spending-figures", markup=False)
            yield Static("enter send anyway (this turn) · esc don't send (your message is "
                         "kept)", id="spending-keys", markup=False)

    def action_send(self) -> None:
        self.dismiss(True)

    def action_stop(self) -> None:
        self.dismiss(False)


def ask_on(app: App[None]) -> SpendingPrompt:
    """The session's question, asked on `app`'s screen (the turn waits for the answer)."""

    async def ask(check: SpendCheck) -> bool:
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def answered(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        app.push_screen(SpendingQuestion(check), answered)
        return await answer

    return ask
