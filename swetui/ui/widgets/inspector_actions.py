"""What the inspector's keys do: pin, drop, edit, preview, refresh, compact, what is sent.

Each action goes through the engine's public API; the engine's events then repaint the
inspector's rows and the gauge, so the screen always shows what the engine holds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from swetui.engine.files import read_error
from swetui.engine.items import ItemKind, ItemState
from swetui.engine.sources import read_workspace_text

if TYPE_CHECKING:
    from swetui.engine.context import ContextEngine
    from swetui.engine.items import ContextItem
    from swetui.ui.screens.item_editor import EditorResult

REFRESH_MAX_BYTES = 256_000

# The screens import widgets (the gauge's number format), so they are imported where used.

REFRESHABLE = frozenset({ItemKind.FILE, ItemKind.MEMORY_FILE, ItemKind.SESSION_NOTES})
"""Kinds whose content is a file's text, so re-reading the file refreshes them."""


class InspectorActions:
    """Key actions of `ContextInspector` (a mixin: the widget supplies the attributes)."""

    engine: ContextEngine
    root: Path | None
    selected: set[str]

    if TYPE_CHECKING:
        from textual.app import App

        app: App[object]

        def targets(self) -> list[str]: ...
        def item(self, item_id: str) -> ContextItem | None: ...
        @property
        def cursor_item(self) -> ContextItem | None: ...
        def notify(self, message: str, *, title: str = "", severity: str = "information",
                   timeout: float | None = None, markup: bool = True) -> None: ...
        def post_message(self, message: object) -> bool: ...

    def _items(self) -> list[ContextItem]:
        return [item for item_id in self.targets() if (item := self.item(item_id)) is not None]

    def action_pin(self) -> None:
        """Pin the targets (all already pinned: unpin them)."""
        items = self._items()
        if not items:
            return
        pin = not all(item.pinned for item in items)
        with self.engine.batch("pinned" if pin else "unpinned"):
            for item in items:
                if pin:
                    self.engine.pin(item.id)
                else:
                    self.engine.unpin(item.id)

    def action_drop(self) -> None:
        """Drop the targets from the request (all already out: restore them)."""
        items = self._items()
        if not items:
            return
        out = (ItemState.DROPPED, ItemState.COMPACTED)
        restore = all(item.state in out and not item.pinned for item in items)
        with self.engine.batch("restored" if restore else "dropped"):
            for item in items:
                if restore:
                    self.engine.restore(item.id)
                else:
                    self.engine.drop(item.id)

    def action_compact(self) -> None:
        """Ask the app to compact the targets (the compactor is not the inspector's)."""
        from swetui.ui.widgets.inspector import ContextInspector

        ids = tuple(self.targets())
        if not ids:
            self.notify("Nothing to compact: select items first", severity="warning")
            return
        self.post_message(ContextInspector.CompactRequested(ids))

    def action_edit(self) -> None:
        """Edit what is sent for the item under the cursor (the original is kept)."""
        from swetui.ui.screens.item_editor import ItemEditor

        item = self.cursor_item
        if item is None:
            return
        item_id = item.id

        def done(result: EditorResult | None) -> None:
            if result is None or self.item(item_id) is None:
                return
            if result.revert:
                self.engine.revert_edit(item_id)
                self.notify(f"Restored the original of {item.title}")
            elif result.text is not None:
                self.engine.edit(item_id, result.text)

        self.app.push_screen(ItemEditor.for_item(item), done)

    def action_preview(self) -> None:
        """Show the item's full content, highlighted when it is code."""
        from swetui.ui.screens.item_preview import ItemPreview

        item = self.cursor_item
        if item is not None:
            self.app.push_screen(ItemPreview(item, self.engine.sent_tokens(item.id)))

    def action_what_is_sent(self) -> None:
        """Show the exact next request, as the engine assembles it."""
        from swetui.ui.screens.request_view import RequestView

        self.app.push_screen(RequestView(self.engine.assemble(), self.engine))

    def action_refresh_item(self) -> None:
        """Re-read the targets' files from disk (stale ones first of all)."""
        items = [item for item in self._items()
                 if item.source.path and item.kind in REFRESHABLE]
        if not items:
            self.notify("Only files (@path, memory, notes) can be re-read; a tool result keeps "
                        "what the tool returned", severity="warning")
            return
        self._reread([(item.id, item.source.path or "") for item in items])

    @work(group="inspector-refresh", exit_on_error=False)
    async def _reread(self, sources: list[tuple[str, str]]) -> None:
        """Read each file off the event loop, then hand the text to the engine."""
        root = self.root or Path.cwd()
        refreshed = 0
        for item_id, relative in sources:
            current = self.item(item_id)
            limit = max(REFRESH_MAX_BYTES, len(current.content) if current else 0)
            try:
                loaded = await asyncio.to_thread(read_workspace_text, root, relative, limit)
            except FileNotFoundError:
                self.notify(f"{relative} is gone from disk", severity="warning")
                continue
            except OSError as exc:
                self.notify(read_error(relative, exc), severity="error")
                continue
            if loaded is None:
                self.notify(f"{relative} is now a binary file", severity="error")
                continue
            text = loaded.text
            if self.item(item_id) is None:
                continue
            self.engine.update(item_id, content=text, original=None,
                               state=ItemState.INCLUDED, reason="refreshed from disk")
            refreshed += 1
        if refreshed:
            self.notify(f"Refreshed {refreshed} item{'s' if refreshed != 1 else ''} from disk")
