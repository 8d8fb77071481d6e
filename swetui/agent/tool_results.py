"""A tool call's result becomes a context item (what the model sees next) and a line in the
session log (what a resumed transcript shows)."""

from __future__ import annotations

from typing import Any

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.payloads import ToolCallPayload
from swetui.engine.store import RecordEvent

RESULT_LOG_CHARS = 20_000
"""Tool output kept in the session log for the transcript (the item keeps it all)."""


def add_tool_result(engine: ContextEngine, record: RecordEvent, *, call_id: str, name: str,
                    arguments: dict[str, Any], content: str, summary: str, is_error: bool,
                    path: str | None, title: str, turn: int | None = None,
                    reason: str = "added") -> ContextItem:
    """Add the result item and log it. `turn` is the running turn (the item is then used in
    it); None for a result given outside a turn (after a restart)."""
    current = engine.turn if turn is None else turn
    item = engine.add(ContextItem(
        id=engine.new_id("c"), kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY, title=title,
        content=content, origin=Origin.AGENT, turn_created=current,
        turn_last_used=0 if turn is None else turn,
        source=Source(path=path, turn_id=None if turn is None else f"t{turn}",
                      tool_call_id=call_id),
        payload=ToolCallPayload(name=name, arguments=arguments, is_error=is_error,
                                summary=summary)), reason=reason)
    record("tool_result", {"turn": current, "call_id": call_id, "name": name,
                           "summary": summary, "content": content[:RESULT_LOG_CHARS],
                           "is_error": is_error, "path": path})
    return item
