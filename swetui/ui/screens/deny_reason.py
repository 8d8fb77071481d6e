"""Ask why an action is denied: the reason goes back to the model with the denial."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from swetui.agent import (
    PendingAction,
)
from swetui.ui.widgets.approval_preview import action_title


class DenyReason(ModalScreen[str | None]):
    """Dismisses with the reason (possibly empty) on enter, or None on esc (not denied)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, action: PendingAction) -> None:
        super().__init__()
        self.action = action

    def compose(self) -> ComposeResult:
        with Vertical(id="deny-dialog"):
            yield Label("Deny", id="deny-title")
            yield Label(action_title(self.action), id="deny-action", markup=False)
            yield Input(placeholder="Why? (told to the model; enter to deny)", id="deny-input")
            yield Static("enter deny · esc cancel", id="deny-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
