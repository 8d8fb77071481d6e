"""Lines shown in the request count where they are shown: a read of a function does not
stand for another function with the same body, neither when a retrieved span leaves the
request (`retire_shown_by_tools`) nor when retrieval decides what is already in context."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.shown_by_tools import retire_shown_by_tools
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin, Source
from swetui.engine.payloads import ToolCallPayload
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap

SOURCE = '''\
def refund_order(order):
    if order.paid is None:
        raise ValueError("order was never paid")
    ledger = ledger_for(order.customer)
    ledger.lock()
    try:
        ledger.credit(order.total, reason=order.reason)
        ledger.record(order.id, order.total)
    finally:
        ledger.unlock()
    notify(order.customer, order.id)
    return ledger.balance()


def cancel_order(order):
    if order.paid is None:
        raise ValueError("order was never paid")
    ledger = ledger_for(order.customer)
    ledger.lock()
    try:
        ledger.credit(order.total, reason=order.reason)
        ledger.record(order.id, order.total)
    finally:
        ledger.unlock()
    notify(order.customer, order.id)
    return ledger.balance()
'''


def test_a_span_is_not_retired_by_a_read_of_a_different_function(tmp_path: Path) -> None:
    """MEDIUM: "not sent twice" compares lines as a set, ignoring where they are: the model
    reading lines 1-12 (refund_order) retires the retrieved span of cancel_order (lines
    15-26, same body) with a stub 'a tool result shows it', though no tool result shows
    `def cancel_order` or its lines."""
    (tmp_path / "orders.py").write_text(SOURCE)
    symbols = SymbolMap(tmp_path)
    symbols.build()
    engine = ContextEngine()
    found = retrieve(tmp_path, "what does cancel_order do?", engine, turn=1,
                     symbols=symbols.index(), semantic=None)
    spans = [item for item in found.items if item.kind is ItemKind.SPAN]
    assert spans and "def cancel_order" in spans[0].content
    for item in found.items:
        engine.add(item)
    shown = "\n".join(f"{n:6}\t{line}" for n, line in
                      enumerate(SOURCE.splitlines()[:12], 1))
    engine.add(ContextItem(
        id="c1", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
        title="read_file orders.py", content=shown, origin=Origin.AGENT, turn_created=1,
        source=Source(path="orders.py", tool_call_id="call1"),
        payload=ToolCallPayload(name="read_file",
                                arguments={"path": "orders.py", "limit": 12})))
    retired = retire_shown_by_tools(engine, 1)
    assert spans[0].id not in retired, "cancel_order's span retired by a read of refund_order"
    assert engine.get(spans[0].id).state is ItemState.INCLUDED  # type: ignore[union-attr]


def _read(engine: ContextEngine, lines: int) -> None:
    """The model's read_file of the first `lines` lines of orders.py, in the request."""
    shown = "\n".join(f"{n:6}\t{line}" for n, line in
                      enumerate(SOURCE.splitlines()[:lines], 1))
    engine.add(ContextItem(
        id=f"c{lines}", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
        title="read_file orders.py", content=shown, origin=Origin.AGENT, turn_created=1,
        source=Source(path="orders.py", tool_call_id=f"call{lines}"),
        payload=ToolCallPayload(name="read_file",
                                arguments={"path": "orders.py", "limit": lines})))


def test_retrieval_attaches_a_function_whose_twin_the_model_read(tmp_path: Path) -> None:
    """The same law when retrieval decides what the request already carries: a read of
    refund_order does not make cancel_order 'already in context'; a read of both does."""
    (tmp_path / "orders.py").write_text(SOURCE)
    symbols = SymbolMap(tmp_path)
    symbols.build()
    for lines, attached in ((12, True), (len(SOURCE.splitlines()), False)):
        engine = ContextEngine()
        _read(engine, lines)
        found = retrieve(tmp_path, "what does cancel_order do?", engine, turn=2,
                         symbols=symbols.index(), semantic=None)
        spans = [item for item in found.items if item.kind is ItemKind.SPAN]
        assert bool(spans) is attached, (lines, found.notes)
        if attached:
            assert "def cancel_order" in spans[0].content
