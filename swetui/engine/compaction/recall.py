"""`recall`: an archived exchange (or a single folded item) back as header, summary or full
text, for the model's `recall` tool."""

from __future__ import annotations

import re

from swetui.engine.assembly import CONVERSATION_KINDS
from swetui.engine.compaction.text import (
    argument_text,
    exchange_header,
    exchange_summary,
    first_line,
)
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer
from swetui.engine.payloads import ExchangePayload

FORMS = ("header", "summary", "full")


class RecallError(KeyError):
    """Nothing in the archive answers to that id."""

    def __str__(self) -> str:
        return str(self.args[0])


def recall(engine: ContextEngine, item_or_turn_id: str, form: str = "full") -> str:
    """An archived exchange as `header`, `summary` or `full` text. The id may be a header or
    summary id (`d12`), any item of the exchange (`c34`), or a turn (`t7` / `7`)."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}: use header, summary or full")
    key = item_or_turn_id.strip()
    if key in engine:
        item = engine.get(key)
        if isinstance(item.payload, ExchangePayload):
            return _exchange(engine, item.payload.turn, form)
        if item.layer is Layer.HISTORY and item.kind in CONVERSATION_KINDS:
            return _exchange(engine, item.turn_created, form)
        return _single(item, form)
    match = re.fullmatch(r"t?(\d+)", key)
    if match:
        return _exchange(engine, int(match.group(1)), form)
    raise RecallError(f"nothing to recall under {key!r}: use an id shown in a header ([d12]), "
                      "a folded result (recall c34) or a turn (t7)")


def _single(item: ContextItem, form: str) -> str:
    if form == "full":
        return item.content
    if form == "header":
        return f"[{item.id}] {item.title}"
    return item.stub or f"[{item.id}] {item.title}: {first_line(item.content, 200)}"


def _exchange(engine: ContextEngine, turn: int, form: str) -> str:
    items = [item for item in engine if item.turn_created == turn
             and item.layer is Layer.HISTORY and item.kind in CONVERSATION_KINDS]
    digests = [item for item in engine if isinstance(item.payload, ExchangePayload)
               and item.payload.turn == turn and item.payload.form == form
               and item.state is not ItemState.DROPPED]
    if not items and not digests:
        raise RecallError(f"no exchange t{turn} in this session")
    count = engine.counter.count
    if form == "header":
        return digests[-1].content if digests else exchange_header(turn,
            next((i.content for i in items if i.kind is ItemKind.USER_MESSAGE), ""), count)
    if form == "summary":
        return digests[-1].content if digests else exchange_summary(turn, items, count)
    lines = [f"Exchange t{turn} in full:"]
    for item in items:
        if item.kind is ItemKind.USER_MESSAGE:
            lines.append(f"user: {item.content}")
        elif item.kind is ItemKind.ASSISTANT_MESSAGE:
            lines.append(f"assistant: {item.content}")
        else:
            failed = " (failed)" if item.call.is_error else ""
            lines.append(f"tool {item.call.name or 'tool'}({argument_text(item)})"
                         f"{failed} [{item.id}]:\n{item.content}")
    return "\n".join(lines)
