"""A restart whose files are as they were ranked takes the file ranking from the map's cache
(the ranking is a restart's highest memory and a sixth of its CPU at 10,000 files) and gets
the very ranks a ranking would give; any change ranks anew, and a stored row that is not
what swetui wrote is not used."""

from __future__ import annotations

import contextlib
import sqlite3
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols import stored_ranks
from swetui.engine.symbols.extract import FileSymbols
from swetui.engine.symbols.file_rank import rank_files
from swetui.engine.symbols.symbol_map import SymbolMap
from tests.engine.helpers import write_files

FILES = {
    "src/ledger.py": "def settle_balance(entries):\n    return sum(entries)\n",
    "src/audit.py": "from ledger import settle_balance\n"
                    "def reconcile(books):\n    return settle_balance(books)\n",
    "src/report.py": "from audit import reconcile\nfrom ledger import settle_balance\n"
                     "def report(books):\n    return reconcile(books), settle_balance(books)\n",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_files(tmp_path, FILES)


def cache_of(root: Path) -> Path:
    return root / ".swetui" / "symbols" / "map.sqlite"


def ranks_of(root: Path, *, cache: bool = True) -> dict[str, float]:
    symbols = SymbolMap(root, cache_path=cache_of(root) if cache else None)
    symbols.build()
    return symbols.index().file_rank


@pytest.fixture
def not_ranked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the rankings run from here on."""
    runs: list[int] = []

    def counted(*args: object) -> dict[str, float]:
        runs.append(1)
        return rank_files(*args)  # type: ignore[arg-type]

    monkeypatch.setattr("swetui.engine.symbols.symbol_index.rank_files", counted)
    return runs


def test_a_restart_of_unchanged_files_takes_the_stored_ranks(workspace, not_ranked):
    built = ranks_of(workspace)
    not_ranked.clear()
    assert ranks_of(workspace) == built
    assert not_ranked == []  # not ranked again
    assert built["src/ledger.py"] > built["src/report.py"]  # the used file ranks first


def test_a_file_changed_while_closed_is_ranked_anew(workspace, not_ranked):
    stored = ranks_of(workspace)
    (workspace / "src" / "ledger.py").write_text(FILES["src/ledger.py"] + "# edited\n")
    (workspace / "src" / "extra.py").write_text("from audit import reconcile\nreconcile([])\n")
    restarted = ranks_of(workspace)
    assert not_ranked  # ranked again
    assert restarted == ranks_of(workspace, cache=False) != stored


@pytest.mark.parametrize("ranks", [
    array("d", [float("nan"), 0.2, 0.3]).tobytes(),
    array("d", [-0.1, 0.2, 0.3]).tobytes(),
    array("d", [float("inf"), 0.2, 0.3]).tobytes(),
    array("d", [0.1, 0.2]).tobytes(),  # one rank short
    array("d", [0.1, 0.2, 0.3]).tobytes()[:-1],  # cut
    "0.1,0.2,0.3",  # text, not what swetui writes
], ids=["nan", "negative", "infinite", "short", "cut", "text"])
def test_stored_ranks_swetui_did_not_write_are_not_used(workspace, ranks, not_ranked):
    right = ranks_of(workspace)
    with contextlib.closing(sqlite3.connect(cache_of(workspace))) as connection:
        connection.execute("UPDATE ranks SET ranks = ?", (ranks,))
        connection.commit()
    not_ranked.clear()
    assert ranks_of(workspace) == right
    assert not_ranked  # ranked again, not taken from the row


def test_ranks_stored_for_other_files_are_not_used(workspace, not_ranked):
    right = ranks_of(workspace)
    with contextlib.closing(sqlite3.connect(cache_of(workspace))) as connection:
        connection.execute("UPDATE ranks SET fingerprint = zeroblob(32)")
        connection.commit()
    not_ranked.clear()
    assert ranks_of(workspace) == right
    assert not_ranked


paths = st.text("abc/._é", min_size=1, max_size=12)
stamps = st.tuples(st.integers(0, 2**40), st.integers(0, 2**62))
rank_values = st.floats(min_value=0.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(paths, st.tuples(stamps, rank_values), min_size=1, max_size=8),
       paths, stamps)
def test_ranks_come_back_bit_for_bit_for_the_same_files_only(tmp_path_factory, files, other,
                                                              stamp):
    cache_path = tmp_path_factory.mktemp("ranks") / "map.sqlite"
    entries = {rel: (FileSymbols(path=rel, language="python", lines=1), known)
               for rel, (known, _rank) in files.items()}
    ranks = {rel: rank for rel, (_known, rank) in files.items()}
    stored_ranks.save(cache_path, entries, ranks)
    loaded = stored_ranks.load(cache_path, entries)
    assert loaded is not None and list(loaded.items()) == list(ranks.items())
    changed = dict(entries)
    if other in changed:
        changed[other] = (changed[other][0], (stamp[0], stamp[1] + 1) if stamp ==
                          changed[other][1] else stamp)
    else:
        changed[other] = (FileSymbols(path=other, language="python", lines=1), stamp)
    assert stored_ranks.load(cache_path, changed) is None
