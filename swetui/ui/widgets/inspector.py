"""The context inspector: a row per context item, grouped by layer, that the user steers.

A Line-API list (only the visible rows are ever drawn) over `InspectorRows`. The screen hands
it the engine's `ItemsChanged` events (from the UI's one event bridge) and it follows them
incrementally: a changed item repaints its own row and its layer's header; only a new item or
a pin/unpin re-flattens the row order. The cursor stays on the same item across every
refresh. Its keys act through the engine's public API and ask the screen for the modals.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import events, work
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from swetui.engine.context import ContextEngine, UnknownItem
from swetui.engine.items import ContextItem, Layer
from swetui.ui.widgets.gauge import component_foreground
from swetui.ui.widgets.inspector_render import RowStyles, legend, render_row
from swetui.ui.widgets.inspector_rows import HeaderRow, InspectorRows, Row
from swetui.ui.widgets.inspector_steering import (
    is_refreshable,
    refresh_from_disk,
    toggle_dropped,
    toggle_pins,
)
from swetui.ui.widgets.modal_requests import (
    ItemEditRequested,
    ItemPreviewRequested,
    RequestViewRequested,
)


class ContextInspector(ScrollView, can_focus=True):
    """Every context item, grouped by layer: pin, drop, edit, preview, refresh, compact."""

    DEFAULT_CSS = """
    ContextInspector {
        height: 1fr;
        background: $surface;
        & > .context-inspector--header { color: $text-accent; text-style: bold; }
        & > .context-inspector--muted { color: $text-disabled; }
        & > .context-inspector--pin { color: $warning; }
        & > .context-inspector--selected-mark { color: $accent; text-style: bold; }
        & > .context-inspector--selected { background: $accent 20%; }
        & > .context-inspector--dropped { color: $text-disabled; text-style: strike; }
        & > .context-inspector--compacted { color: $text-muted; text-style: italic; }
        & > .context-inspector--stale { color: $warning; }
        & > .context-inspector--edited { color: $accent; text-style: bold; }
        & > .context-inspector--cursor {
            background: $block-cursor-blurred-background;
        }
        &:focus > .context-inspector--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
        }
    }
    """

    COMPONENT_CLASSES = {
        "context-inspector--header", "context-inspector--muted", "context-inspector--pin",
        "context-inspector--selected-mark", "context-inspector--selected",
        "context-inspector--dropped", "context-inspector--compacted",
        "context-inspector--stale", "context-inspector--edited", "context-inspector--cursor",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("shift+up", "extend_up", "Select up", show=False),
        Binding("shift+down", "extend_down", "Select down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("space", "toggle_select", "Select"),
        Binding("a", "select_layer", "Select layer", show=False),
        Binding("escape", "clear_selection", "Clear selection", show=False),
        Binding("p", "pin", "Pin"),
        Binding("d", "drop", "Drop/restore"),
        Binding("e", "edit", "Edit"),
        Binding("enter,v", "preview", "View"),
        Binding("r", "refresh_item", "Refresh"),
        Binding("c", "compact", "Compact"),
        Binding("w", "what_is_sent", "What is sent"),
        Binding("question_mark", "legend", "States"),
    ]

    class CompactRequested(Message):
        """The user asked to compact these items (the app runs the compactor)."""

        def __init__(self, item_ids: tuple[str, ...]) -> None:
            super().__init__()
            self.item_ids = item_ids

    def __init__(self, engine: ContextEngine, *, id: str | None = None,  # noqa: A002
                 root: Path | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.engine = engine
        self.root = root
        self.rows = InspectorRows()
        self.selected: set[str] = set()
        """Ids of the multi-selected items (actions apply to these, else to the cursor)."""
        self._cursor = 0
        self._cursor_row: Row | None = None
        self._pending: set[str] = set()

    def on_mount(self) -> None:
        self.reload()

    def items_changed(self, ids: tuple[str, ...]) -> None:
        """Repaint these items' rows (the screen calls this on the engine's `ItemsChanged`)."""
        first = not self._pending
        self._pending.update(ids)
        if first:  # one pass for a burst of events
            self.call_later(self._apply_pending)

    def reload(self) -> None:
        """Rebuild every row from the engine (start-up, or after a wholesale change)."""
        self.rows.load(self.engine)
        self.selected &= set(item.id for item in self.engine)
        self._after_reorder()

    def _apply_pending(self) -> None:
        ids, self._pending = self._pending, set()
        reordered = False
        for item_id in ids:
            item = self.item(item_id)
            reordered |= self.rows.apply(item, item_id)
            if item is None:
                self.selected.discard(item_id)
        if reordered:
            self.rows.commit()
            self._after_reorder()
            return
        layers: set[Layer] = set()
        for item_id in ids:
            index = self.rows.index_of(item_id)
            layer = self.rows.layer_of(item_id)
            if index is not None:
                self.refresh_line(index)
            if layer is not None:
                layers.add(layer)
        for layer in layers:
            header = self.rows.index_of(HeaderRow(layer))
            if header is not None:
                self.refresh_line(header)

    def _after_reorder(self) -> None:
        """Keep the cursor on the same row (item) after the row order changed."""
        index = self.rows.index_of(self._cursor_row) if self._cursor_row is not None else None
        if index is None:
            index = self._first_item_index() if self._cursor_row is None else self._cursor
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))
        self._move(index, scroll=True)
        self.refresh()

    # -- rows, cursor and selection --------------------------------------------------------

    def item(self, item_id: str) -> ContextItem | None:
        try:
            return self.engine.get(item_id)
        except UnknownItem:
            return None

    @property
    def cursor_item(self) -> ContextItem | None:
        """The item under the cursor (None on a layer header or an empty list)."""
        row = self._cursor_row
        return self.item(row) if isinstance(row, str) else None

    @property
    def cursor_index(self) -> int:
        return self._cursor

    def targets(self) -> list[str]:
        """What an action applies to: the selection, else the item under the cursor (on a
        layer header: nothing; press space there to select the layer). In row order."""
        if self.selected:
            return self.rows.in_row_order(self.selected)
        row = self._cursor_row
        return [row] if isinstance(row, str) else []

    def move_to(self, item_id: str) -> None:
        """Put the cursor on an item."""
        index = self.rows.index_of(item_id)
        if index is not None:
            self._move(index, scroll=True)

    def _first_item_index(self) -> int:
        return next((i for i, row in enumerate(self.rows.rows) if isinstance(row, str)), 0)

    def _move(self, index: int, *, scroll: bool = True) -> None:
        count = len(self.rows)
        old = self._cursor
        self._cursor = max(0, min(index, count - 1)) if count else 0
        self._cursor_row = self.rows.rows[self._cursor] if count else None
        if old != self._cursor:
            self.refresh_line(old)
        self.refresh_line(self._cursor)
        if scroll and count:  # a layer's first item brings its header into view with it
            top = self._cursor - isinstance(self.rows.rows[self._cursor - 1], HeaderRow) \
                if self._cursor else 0
            self.scroll_to_region(Region(0, top, 1, self._cursor - top + 1), animate=False,
                                  force=True, immediate=True)

    def action_cursor_up(self) -> None:
        self._move(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move(self._cursor + 1)

    def action_page_up(self) -> None:
        self._move(self._cursor - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._move(self._cursor + max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self._move(0)

    def action_last(self) -> None:
        self._move(len(self.rows) - 1)

    def _select(self, item_ids: list[str], on: bool) -> None:
        if on:
            self.selected.update(item_ids)
        else:
            self.selected.difference_update(item_ids)
        self.refresh()

    def action_toggle_select(self) -> None:
        """Space: toggle the item under the cursor (on a header, its whole layer)."""
        row = self._cursor_row
        if isinstance(row, HeaderRow):
            self.action_select_layer()
        elif isinstance(row, str):
            self._select([row], row not in self.selected)
            self._move(self._cursor + 1)

    def action_select_layer(self) -> None:
        """Select every item of the cursor's layer (again: unselect them)."""
        ids = self.rows.group_at(self._cursor)
        if ids:
            self._select(ids, not all(item_id in self.selected for item_id in ids))

    def _extend(self, step: int) -> None:
        row = self._cursor_row
        if isinstance(row, str):
            self._select([row], True)
        self._move(self._cursor + step)
        row = self._cursor_row
        if isinstance(row, str):
            self._select([row], True)

    def action_extend_up(self) -> None:
        self._extend(-1)

    def action_extend_down(self) -> None:
        self._extend(1)

    def action_clear_selection(self) -> None:
        self._select(list(self.selected), False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_selection":
            return bool(self.selected)  # otherwise escape goes on to the app
        if action in {"edit", "preview"}:
            return self.cursor_item is not None or None
        return True

    # -- key actions (through the engine's public API; modals via the screen) ---------------

    def _items(self) -> list[ContextItem]:
        if not self.targets() and isinstance(self._cursor_row, HeaderRow):
            # Never silently nothing: a key on a header says how to act on the layer.
            self.notify("That is a layer header: space selects its items, then the key acts "
                        "on all of them", severity="warning")
        return [item for item_id in self.targets() if (item := self.item(item_id)) is not None]

    def action_legend(self) -> None:
        """Say what the state words and marks of the rows mean."""
        self.notify(legend(), title="Context item states", timeout=20, markup=False)

    def action_pin(self) -> None:
        """Pin the targets (all already pinned: unpin them)."""
        toggle_pins(self.engine, self._items())

    def action_drop(self) -> None:
        """Drop the targets from the request (all already out: restore them)."""
        toggle_dropped(self.engine, self._items())

    def action_compact(self) -> None:
        """Ask the app to compact the targets (the compactor is not the inspector's)."""
        ids = tuple(self.targets())
        if not ids:
            self.notify("Nothing to compact: select items first", severity="warning")
            return
        self.post_message(self.CompactRequested(ids))

    def action_edit(self) -> None:
        """Edit what is sent for the item under the cursor (the original is kept)."""
        item = self.cursor_item
        if item is not None:
            self.post_message(ItemEditRequested(item, partial(self.edit_item, item.id),
                                                partial(self.revert_item, item.id)))

    def edit_item(self, item_id: str, text: str) -> None:
        """Send `text` instead of the item's content (if the item is still there)."""
        if self.item(item_id) is not None:
            self.engine.edit(item_id, text)

    def revert_item(self, item_id: str) -> None:
        """Send the item's original content again."""
        if (item := self.item(item_id)) is not None:
            self.engine.revert_edit(item_id)
            self.notify(f"Restored the original of {item.title}")

    def action_preview(self) -> None:
        """Show the item's full content, highlighted when it is code."""
        item = self.cursor_item
        if item is not None:
            self.post_message(ItemPreviewRequested(item, self.engine.sent_tokens(item.id)))

    def action_what_is_sent(self) -> None:
        """Show the exact next request, as the engine assembles it."""
        self.post_message(RequestViewRequested(self.engine))

    def action_refresh_item(self) -> None:
        """Re-read the targets' files from disk (stale ones first of all)."""
        items = [item for item in self._items() if is_refreshable(item)]
        if not items:
            self.notify("Only files (@path, memory, notes) can be re-read; a tool result keeps "
                        "what the tool returned", severity="warning")
            return
        self._reread([item.id for item in items])

    @work(group="inspector-refresh", exit_on_error=False)
    async def _reread(self, item_ids: list[str]) -> None:
        refreshed, problems = await refresh_from_disk(self.engine, self.root or Path.cwd(),
                                                      item_ids)
        for problem in problems:
            self.notify(problem.message, severity=problem.severity)
        if refreshed:
            self.notify(f"Refreshed {refreshed} item{'s' if refreshed != 1 else ''} from disk")

    # -- mouse -----------------------------------------------------------------------------

    async def _on_click(self, event: events.Click) -> None:
        row = event.style.meta.get("row")
        if row is None:
            return
        self.focus()
        self._move(row, scroll=False)
        item_id = self._cursor_row
        if not isinstance(item_id, str):
            if isinstance(item_id, HeaderRow) and event.chain == 1:
                self.action_select_layer()
            return
        if event.style.meta.get("pin"):
            self.action_pin()
        elif event.ctrl or event.shift or event.style.meta.get("select"):
            self._select([item_id], item_id not in self.selected)
        elif event.chain >= 2:
            self.action_preview()

    # -- drawing ---------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not 0 <= index < len(self.rows):
            return Strip.blank(width, base)
        row = self.rows.rows[index]
        styles = RowStyles.read(
            lambda name: component_foreground(self, f"context-inspector--{name}"))
        text = render_row(row, self.engine, self.rows, self.selected, width, index=index,
                          styles=styles)
        if text is None:
            return Strip.blank(width, base)
        line_style = base
        if isinstance(row, str) and row in self.selected:
            line_style += self.get_component_rich_style("context-inspector--selected")
        if index == self._cursor:
            line_style += self.get_component_rich_style("context-inspector--cursor")
        strip = Strip(list(text.render(self.app.console, end="")), width)
        return strip.apply_style(line_style).crop_extend(0, width, line_style)
