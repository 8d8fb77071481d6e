"""What retrieval tells the user about what it sent is true: a minified definition on one
huge line is not said to have used up the share when nothing else was attached; files grep
skipped are not counted as searched; a class sent in part is not summarised as all its lines."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_spans import span_title
from swetui.engine.spans import Span
from swetui.engine.symbols.symbol_map import SymbolMap


def test_a_definition_on_one_huge_line_is_not_said_to_exhaust_the_share(
        tmp_path: Path) -> None:
    """LOW: a minified definition (one 400 KB line) is left out with 'retrieval's
    8,000-token share is used' although nothing else was attached: the note is not honest,
    and the user gets nothing (not even a cut first part)."""
    (tmp_path / "mini.py").write_text(
        "def apply_discount_rules(cart): return [x * 0.9 for x in cart]; "
        + "; ".join(f"v{i} = {i}" for i in range(30_000)) + "\n")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    result = retrieve(tmp_path, "how does apply_discount_rules compute the cart discount?",
                      ContextEngine(), turn=1, symbols=symbols.index(), semantic=None)
    assert result.items or not any("share is used" in note for note in result.notes), \
        result.notes


def test_grep_does_not_count_files_it_skipped_as_searched(tmp_path: Path) -> None:
    """LOW: a 1.2 MB source file holding the term is skipped (over the grep limit) but the
    note says 'no matches in 1 files', as if it had been searched."""
    (tmp_path / "bundle.py").write_text(
        "# generated\n" + "x = 1\n" * 200_000 + "def zqx_marker_function():\n    pass\n")
    result = retrieve(tmp_path, 'find "zqx_marker_function"', ContextEngine(), turn=1)
    assert result.items or not any("no matches in 1 files" in note for note in result.notes), \
        result.notes


def test_the_summary_of_a_cut_class_does_not_claim_all_its_lines(tmp_path: Path) -> None:
    """LOW: a class of 20,005 lines sent as 4 of them (the note inside says so) is reported
    to the user as 'added to this request's context: huge.py:1-20005' (the transcript and
    `swetui run` line), as if all of it were sent."""
    members = "".join(f"    def reconcile_entry_{i}(self):\n        return {i}\n"
                      for i in range(10_000))
    (tmp_path / "huge.py").write_text(
        "class TransactionLedger:\n    \"\"\"Ledger.\"\"\"\n" + members
        + "    def reconcile_balance_after_refund(self):\n        return 0\n")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    result = retrieve(tmp_path, "how does TransactionLedger reconcile the balance after a "
                      "refund?", ContextEngine(), turn=1, symbols=symbols.index(),
                      semantic=None)
    [item] = [item for item in result.items if item.kind is ItemKind.SPAN]
    assert "of 20,004 lines shown" in item.content.splitlines()[0]
    assert "1-20004" not in result.summary, result.summary


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.integers(1, 400), min_size=1, max_size=60))
def test_a_span_title_names_only_lines_that_are_shown(lines: list[int]) -> None:
    title = span_title(Span("a.py", list(lines)))
    assert title.startswith("a.py:")
    named: set[int] = set()
    parts = title.removeprefix("a.py:").split(",")
    for part in parts:
        if part == "…":
            continue
        first, _, last = part.partition("-")
        named.update(range(int(first), int(last or first) + 1))
    assert named <= set(lines)
    if "…" not in parts:
        assert named == set(lines)
