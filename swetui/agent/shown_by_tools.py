"""A retrieval the model then read for itself is not sent twice: when a tool result of the
running turn about the same file (`read_file` of a file retrieval attached, or of the part
a retrieved span shows) shows nearly all the lines a retrieved block shows, the block leaves
the request, as earlier turns' retrievals do, and the tool result carries them from then
on."""

from __future__ import annotations

from swetui.engine.already_sent import ShownLines
from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind, ItemState, Layer, Origin
from swetui.files import source_lines

SHOWN_KINDS = frozenset({ItemKind.FILE, ItemKind.SPAN})
"""Retrieved blocks that show a file's lines (grep hits and listings are left alone)."""
_SENT = (ItemState.INCLUDED, ItemState.STALE)


def retire_shown_by_tools(engine: ContextEngine, turn: int) -> list[str]:
    """Take this turn's retrieved blocks whose lines its tool results about the same file
    now show out of the request (state compacted, with a stub saying why); the ids
    retired."""
    shown = ShownLines()
    paths: set[str] = set()
    for item in engine:
        if (item.kind is ItemKind.TOOL_CALL and item.turn_created == turn
                and item.state is ItemState.INCLUDED and item.source.path):
            shown.add(item.source.path, item.content)
            paths.add(item.source.path)
    if not paths:
        return []
    retired = []
    with engine.batch("shown again by a tool result"):
        for item in engine:
            path = item.source.path
            if not (item.layer is Layer.TASK and item.kind in SHOWN_KINDS
                    and item.origin is Origin.AUTO and not item.pinned
                    and item.state in _SENT and item.turn_created == turn
                    and path in paths):
                continue
            if path is not None and shown.covers(path, source_lines(item.content)):
                engine.update(item.id, state=ItemState.COMPACTED,
                              stub=f"retrieved for turn {turn}: "
                                   f"{path or item.title} (a tool result shows it)",
                              reason="retired: a tool result of this turn shows the same lines")
                retired.append(item.id)
    return retired
