"""A modal text editor: edit what is sent for a context item, or an action before approving.

ctrl+s saves, esc cancels, ctrl+r restores the original (when there is one). The result is
an `EditorResult`; the caller decides what saving means (an engine edit, an approval).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Label, Static, TextArea

from swetui.engine.items import ContextItem
from swetui.text import one_line
from swetui.ui.screens.item_preview import numbered

PRICE_DELAY = 0.3
"""Seconds after the last keystroke before the edit is priced again."""


@dataclass(frozen=True)
class EditorResult:
    """What the user did: saved `text`, or asked to restore the original."""

    text: str | None = None
    revert: bool = False


class ItemEditor(ModalScreen[EditorResult | None]):
    """Edit a piece of text in a modal; dismisses with an `EditorResult` or None."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+r", "revert", "Restore original"),
    ]

    def __init__(self, title: str, text: str, *, subtitle: str = "", can_revert: bool = False,
                 save_label: str = "save", price: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.heading = title
        self.subtitle = subtitle
        self.text = text
        self.can_revert = can_revert
        self.save_label = save_label
        self.price = price
        """What saving `text` would do to the next request (a line), shown as it is typed."""
        self._price_timer: Timer | None = None

    @classmethod
    def for_item(cls, item: ContextItem,
                 price: Callable[[str], str] | None = None) -> ItemEditor:
        """The editor for a context item: what is sent now, with the original kept."""
        subtitle = f"{item.kind.value} · {item.layer.value}"
        if item.edited:
            subtitle += " · edited (ctrl+r restores the original)"
        return cls(f"Edit {one_line(item.title)}", item.content, subtitle=subtitle,
                   can_revert=item.edited, price=price)

    def compose(self) -> ComposeResult:
        with Vertical(id="editor-dialog"):
            yield Label(self.heading, id="editor-title", markup=False)
            if self.subtitle:
                yield Label(self.subtitle, id="editor-subtitle", markup=False)
            yield TextArea(self.text, id="editor-text", show_line_numbers=not numbered(self.text),
                           soft_wrap=True)
            if self.price is not None:
                yield Static("", id="editor-price", markup=False)
            hints = [f"ctrl+s {self.save_label}", "esc cancel"]
            if self.can_revert:
                hints.append("ctrl+r restore original")
            with Horizontal(id="editor-keys"):
                yield Static(" · ".join(hints), markup=False)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()
        self._show_price()

    def on_text_area_changed(self) -> None:
        if self.price is not None:  # priced again once typing pauses
            if self._price_timer is not None:
                self._price_timer.stop()
            self._price_timer = self.set_timer(PRICE_DELAY, self._show_price)

    def _show_price(self) -> None:
        self._price_timer = None
        if self.price is not None:
            line = self.price(self.query_one(TextArea).text)
            self.query_one("#editor-price", Static).update(f"saving: {line}")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "revert":
            return self.can_revert
        return True

    def action_save(self) -> None:
        self.dismiss(EditorResult(text=self.query_one(TextArea).text))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_revert(self) -> None:
        self.dismiss(EditorResult(revert=True))
