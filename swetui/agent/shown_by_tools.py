"""A retrieval the model then read for itself is not sent twice: when a tool result of the
running turn about the same file (`read_file` of a file retrieval attached, or of the part
a retrieved span shows) shows nearly all the lines a retrieved block shows, the block leaves
the request, as earlier turns' retrievals do, and the tool result carries them from then
on."""

from __future__ import annotations

import re

from swetui.engine.already_sent import COVERED_SHARE
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin

_NUMBERED = re.compile(r"^\s*(\d+)\t")
SHOWN_KINDS = frozenset({ItemKind.FILE, ItemKind.SPAN})
"""Retrieved blocks that show a file's lines (grep hits and listings are left alone)."""
_SENT = (ItemState.INCLUDED, ItemState.STALE)


Key = tuple[int | None, str]
"""A line shown: its number in the file (None when the block shows no numbers) and text."""


def _key(line: str) -> Key:
    match = _NUMBERED.match(line)
    if match is None:
        return None, line.strip()
    return int(match.group(1)), line[match.end():].strip()


def _shown_lines(item: ContextItem) -> list[Key]:
    """The source lines a retrieved block shows, where it shows them: its numbered lines
    (not the note saying which lines they are), or every line of a file attached as it is
    (by text alone: it carries no numbers)."""
    lines = item.content.splitlines()
    numbered = [line for line in lines if _NUMBERED.match(line)]
    keys = (_key(line) for line in (numbered or lines))
    return [key for key in keys if len(key[1]) > 3]


def retire_shown_by_tools(engine: ContextEngine, turn: int) -> list[str]:
    """Take this turn's retrieved blocks whose lines its tool results about the same file
    now show out of the request (state compacted, with a stub saying why); the ids
    retired."""
    shown: dict[str, set[Key]] = {}
    for item in engine:
        if (item.kind is ItemKind.TOOL_CALL and item.turn_created == turn
                and item.state is ItemState.INCLUDED and item.source.path):
            keys = shown.setdefault(item.source.path, set())
            for line in item.content.splitlines():
                number, text = _key(line)
                keys.update({(number, text), (None, text)})  # where, and for a whole file
    if not shown:
        return []
    retired = []
    with engine.batch("shown again by a tool result"):
        for item in engine:
            if not (item.layer is Layer.TASK and item.kind in SHOWN_KINDS
                    and item.origin is Origin.AUTO and not item.pinned
                    and item.state in _SENT and item.turn_created == turn
                    and item.source.path in shown):
                continue
            seen, wanted = shown[item.source.path or ""], _shown_lines(item)
            if wanted and sum(key in seen for key in wanted) >= COVERED_SHARE * len(wanted):
                engine.update(item.id, state=ItemState.COMPACTED,
                              stub=f"retrieved for turn {turn}: "
                                   f"{item.source.path or item.title} (a tool result shows it)",
                              reason="retired: a tool result of this turn shows the same lines")
                retired.append(item.id)
    return retired
