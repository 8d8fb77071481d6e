"""Review what the workspace ships before trusting it: every effect, then trust or not now."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from swetui.trust_review import Review

INTRO = ("This workspace ships settings you have not trusted. Until you do, swetui uses your "
         "own settings and starts nothing they name; a change to them asks again.")


def review_text(reviews: list[Review]) -> Text:
    """Each file with its state and every effect (already escaped by `review`)."""
    text = Text()
    for found in reviews:
        state = "cannot be trusted" if found.error else "not trusted"
        text.append(found.name, style="bold")
        text.append(f"  ({state})\n", style="bold red" if found.error else "bold yellow")
        for line in (found.error,) if found.error else found.effects or (found.summary,):
            text.append(f"  {line}\n")
        text.append("\n")
    return text


class TrustReview(ModalScreen[bool]):
    """Dismisses with True when the user trusts the files (t), False for not now (esc)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("t", "trust", "Trust and apply"),
        Binding("escape,n", "later", "Not now"),
    ]

    def __init__(self, reviews: list[Review]) -> None:
        super().__init__()
        self.reviews = reviews
        self.can_trust = any(not found.error for found in reviews)

    def compose(self) -> ComposeResult:
        with Vertical(id="trust-dialog"):
            yield Label("Trust this workspace's settings?", id="trust-title")
            yield Static(INTRO, id="trust-intro")
            with VerticalScroll(id="trust-files"):
                yield Static(review_text(self.reviews), id="trust-effects")
            with Horizontal(id="trust-buttons"):
                if self.can_trust:
                    yield Button("Trust and apply (t)", id="trust", variant="warning")
                yield Button("Not now (esc)", id="later")
            keys = "t trust and apply · esc not now (asks again next start)" if \
                self.can_trust else "esc close · fix the files above, then /trust"
            yield Static(keys, id="trust-keys")

    def on_mount(self) -> None:
        self.query_one("#later", Button).focus()  # enter must not trust by accident

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust" and self.can_trust)

    def action_trust(self) -> None:
        if self.can_trust:
            self.dismiss(True)

    def action_later(self) -> None:
        self.dismiss(False)
