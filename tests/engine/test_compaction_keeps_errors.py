"""Compaction keeps what matters: every error line of a folded exchange (exception and
message, failing test id, compiler error with path and line) stays in what is sent, names
are filed under the turn they came from, and the retention is measured by an extractor
independent of the compactor's own (`bench.retention`)."""

from __future__ import annotations

from bench.retention import extract, request_text, retention
from swetui.engine.budget import BudgetSettings
from swetui.engine.compaction import StructuralCompactor
from swetui.engine.compaction.sample import SessionMaker
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Source
from swetui.engine.payloads import ReferenceIndexPayload, ToolCallPayload

compactor = StructuralCompactor()

TRACEBACK = """\
============================= FAILURES =============================
____________________ test_connect_uses_the_key ____________________
    def test_connect_uses_the_key():
>       client = connect(settings)
src/net/client.py:41: in connect
    key = settings["api_key"]
E   KeyError: 'api_key'
src/net/client.py:41: KeyError
=========================== short test summary info ===========================
FAILED tests/test_client.py::test_connect_uses_the_key - KeyError: 'api_key'
FAILED tests/test_pool.py::test_close[sqlite] - AttributeError: 'NoneType' object has no attribute 'close'
2 failed, 31 passed in 0.52s"""  # noqa: E501
COMPILER = """\
src/net/pool.py:88: error: Item "None" of "Connection | None" has no attribute "close"  [union-attr]
src/main.c:12:5: error: implicit declaration of function 'frobnicate' [-Wimplicit-function-declaration]
Found 2 errors in 2 files (checked 17 source files)"""  # noqa: E501


def session_with_failures(turns: int = 14) -> tuple[ContextEngine, dict[str, ContextItem]]:
    engine = ContextEngine(BudgetSettings(limit=400_000, reserve=8_000))
    maker = SessionMaker(engine, 11)
    for turn in range(1, turns + 1):
        maker.turn(lines=30)
        if turn in (2, 3):
            output = TRACEBACK if turn == 2 else COMPILER
            engine.add(ContextItem(
                id=engine.new_id("c"), kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                title="bash pytest", content=output, turn_created=turn, turn_last_used=turn,
                source=Source(turn_id=f"t{turn}", tool_call_id=f"fail{turn}"),
                payload=ToolCallPayload(name="bash", arguments={"command": "pytest -q"},
                                        is_error=True, summary="exit 1")))
    return engine, {item.id: item for item in engine}


def test_every_error_line_of_a_folded_exchange_is_still_sent():
    engine, before = session_with_failures()
    finished = compactor.apply(engine, compactor.plan(engine))
    folded = [before[i] for i in finished.folded]
    text = request_text(engine)
    for line in ("KeyError: 'api_key'",
                 "AttributeError: 'NoneType' object has no attribute 'close'",
                 "tests/test_client.py::test_connect_uses_the_key",
                 "tests/test_pool.py::test_close[sqlite]",
                 'src/net/pool.py:88: error: Item "None" of "Connection | None" has no '
                 'attribute "close"  [union-attr]',
                 "src/main.c:12:5: error: implicit declaration of function 'frobnicate'"):
        assert line in text, line
    kept = retention(extract(folded), text)
    assert all(got == wanted for got, wanted, _ in kept.values()), kept


def test_error_lines_and_names_are_filed_under_their_own_turn():
    engine, _ = session_with_failures(24)
    compactor.apply(engine, compactor.plan(engine))
    index = next(i for i in engine if isinstance(i.payload, ReferenceIndexPayload) and i.sent)
    lines = {line.split(":", 1)[0]: line for line in index.content.splitlines()[1:]}
    assert "KeyError: 'api_key'" in lines["t2 errors"]
    assert "src/main.c:12:5: error" in lines["t3 errors"]
    # a name first seen in turn 2's folded output is filed under t2, not the compaction's turn
    assert "test_connect_uses_the_key" not in lines.get(f"t{engine.turn}", "")


def test_a_failed_call_folds_to_its_error_line_not_its_first_line():
    engine, before = session_with_failures()
    compactor.apply(engine, compactor.plan(engine))
    failed = next(i for i in engine if i.source.tool_call_id == "fail2")
    assert failed.stub is not None and "failed:" in failed.stub
    assert "KeyError: 'api_key'" in failed.stub or "AttributeError" in failed.stub
    assert "=====" not in failed.stub
