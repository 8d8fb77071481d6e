"""What a compaction needs to know of an item — the identifiers and error lines it must keep
visible — worked out when the item arrives (like its token count), so that compacting a long
session only gathers what is already known instead of reading every folded output again."""

from __future__ import annotations

from pydantic import BaseModel

from swetui.engine.compaction.text import item_errors, item_identifiers
from swetui.engine.context import ContextEngine
from swetui.engine.events import ItemsChanged
from swetui.engine.items import ContextItem, ItemKind, Layer

FOLDABLE = frozenset({ItemKind.USER_MESSAGE, ItemKind.ASSISTANT_MESSAGE, ItemKind.TOOL_CALL,
                      ItemKind.FILE, ItemKind.SPAN, ItemKind.SHORTLIST, ItemKind.GREP,
                      ItemKind.LISTING})


def warm(item: ContextItem) -> None:
    """Remember `item`'s identifiers and error lines (cached by item and content)."""
    if item.kind in FOLDABLE and item.layer not in (Layer.SYSTEM, Layer.MEMORY):
        item_identifiers(item)
        item_errors(item)


def keep_warm(engine: ContextEngine) -> None:
    """Work out every item's compaction facts as it arrives or changes."""
    def on_change(event: BaseModel) -> None:
        if isinstance(event, ItemsChanged):
            for item_id in event.ids:
                if item_id in engine:
                    warm(engine.get(item_id))

    engine.bus.subscribe(on_change, ItemsChanged)
    for item in engine:  # what a resumed session brought back
        warm(item)
