"""The context inspector: a row per context item, grouped by layer."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.widget import Widget

from swetui.engine.context import ContextEngine


class ContextInspector(Widget):
    """Lists every context item and lets the user pin, drop, edit, preview and compact them."""

    class CompactRequested(Message):
        """The user asked to compact these items."""

        def __init__(self, item_ids: tuple[str, ...]) -> None:
            super().__init__()
            self.item_ids = item_ids

    def __init__(self, engine: ContextEngine, *, id: str | None = None,  # noqa: A002
                 root: Path | None = None) -> None:
        super().__init__(id=id)
        self.engine = engine
        self.root = root
