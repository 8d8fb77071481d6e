"""The symbol map's cache on disk (`.swetui/symbols/map.sqlite`): a restart re-parses only the
files changed or added while swetui was closed and forgets deleted ones; a change rewrites
its own row. The cache sits in the workspace, so it is untrusted: damaged, foreign, hostile
or older files give a rebuilt map and a usable cache again, never a crash."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.symbols import cache
from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.engine.symbols.symbol_map import SymbolMap

LEDGER = "def settle_balance(entries):\n    return sum(entries)\n"
AUDIT = "class Auditor:\n    def reconcile(self):\n        raise ValueError('unbalanced books')\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ledger.py").write_text(LEDGER)
    (tmp_path / "src" / "audit.py").write_text(AUDIT)
    return tmp_path


def cache_of(root: Path) -> Path:
    return root / ".swetui" / "symbols" / cache.FILE_NAME


def built(root: Path) -> SymbolMap:
    symbols = SymbolMap(root, cache_path=cache_of(root))
    symbols.build()
    return symbols


def rewrite_keeping_stamp(path: Path, text: str) -> None:
    """Other text, same size and time: only a cached entry still has the old names."""
    stamp = path.stat()
    assert len(text) == stamp.st_size
    path.write_text(text)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))


def names(symbols: SymbolMap) -> set[str]:
    return set(symbols.index().by_name)


def stored_paths(root: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(cache_of(root))) as connection:
        return sorted(row[0] for row in connection.execute("SELECT path FROM files"))


def test_a_restart_reparses_only_files_changed_added_or_deleted_while_closed(workspace):
    built(workspace)
    assert stored_paths(workspace) == ["src/audit.py", "src/ledger.py"]
    rewrite_keeping_stamp(workspace / "src" / "audit.py", AUDIT.replace("Auditor", "Checker"))
    (workspace / "src" / "ledger.py").write_text(LEDGER + "\n\ndef reopen():\n    pass\n")
    (workspace / "src" / "report.py").write_text("def summarise():\n    pass\n")
    restarted = built(workspace)
    assert {"Auditor", "settle_balance", "reopen", "summarise"} <= names(restarted)
    assert "Checker" not in names(restarted)  # unchanged stamp: the cached entry is used
    (workspace / "src" / "ledger.py").unlink()
    again = built(workspace)
    assert "settle_balance" not in names(again) and "reopen" not in names(again)
    assert stored_paths(workspace) == ["src/audit.py", "src/report.py"]


def test_a_change_rewrites_its_own_row(workspace):
    symbols = built(workspace)
    (workspace / "src" / "ledger.py").write_text(LEDGER.replace("settle", "close"))
    symbols.update(["src/ledger.py"])
    symbols.save()
    rewrite_keeping_stamp(workspace / "src" / "audit.py", AUDIT.replace("Auditor", "Checker"))
    restarted = built(workspace)
    assert "close_balance" in names(restarted) and "settle_balance" not in names(restarted)
    assert "Auditor" in names(restarted)  # its row was not touched


@pytest.mark.parametrize("damage", [
    b"not a database at all" * 100,
    b"SQLite format 3\x00" + b"\xff" * 4000,
    b"",
], ids=["garbage", "torn-header", "empty"])
def test_a_damaged_cache_gives_a_rebuilt_map_and_a_good_cache(workspace, damage: bytes):
    built(workspace)
    cache_of(workspace).write_bytes(damage)
    rebuilt = built(workspace)
    assert {"settle_balance", "Auditor", "reconcile"} <= names(rebuilt)
    assert stored_paths(workspace) == ["src/audit.py", "src/ledger.py"]


def test_an_older_format_is_replaced(workspace):
    older = cache_of(workspace).with_name("map.json")  # format 2, before the database
    older.parent.mkdir(parents=True)
    older.write_text('{"format":2,"files":{}}')
    (older.parent / ".map.json.1a2b3c4d.tmp").write_text("{")  # a write a kill cut short
    built(workspace)
    assert [p.name for p in older.parent.iterdir()] == [cache.FILE_NAME]
    with contextlib.closing(sqlite3.connect(cache_of(workspace))) as connection:
        connection.execute("PRAGMA user_version = 2")
    rewrite_keeping_stamp(workspace / "src" / "audit.py", AUDIT.replace("Auditor", "Checker"))
    rebuilt = built(workspace)  # the old version's rows are not trusted: all parsed again
    assert "Checker" in names(rebuilt) and "Auditor" not in names(rebuilt)


def test_a_foreign_schema_is_never_used_or_run(workspace):
    built(workspace)
    with contextlib.closing(sqlite3.connect(cache_of(workspace))) as connection:
        connection.execute("CREATE TABLE audit_log (entry TEXT)")
        connection.execute("CREATE TRIGGER spy AFTER INSERT ON files BEGIN "
                           "INSERT INTO audit_log VALUES (new.path); END")
    (workspace / "src" / "ledger.py").write_text(LEDGER + "# changed\n")
    rebuilt = built(workspace)
    assert {"settle_balance", "Auditor"} <= names(rebuilt)
    with contextlib.closing(sqlite3.connect(cache_of(workspace))) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
    assert tables == ["files", "sqlite_autoindex_files_1", "left_out",  # written anew,
                      "sqlite_autoindex_left_out_1", "ranks"]  # the trigger gone


@pytest.mark.parametrize("data", [
    b'[["x"],[[0,0,0,"one",1,[],[],[],[]]],[[],[]],[]]',  # a line that is no number
    b'[[7],[],[[0],[1]],[]]',  # a string that is a number
    b'[["x"],[[0,0,9,1,1,[],[],[],[]]],[[],[]],[]]',  # a string number out of range
    b'[["x"],[],[[0],[1,2]],[]]',  # counts without names
    b"[" * 100_000,  # nested deeper than any parser allows
    b"\x80\x81 not json",
], ids=["line", "string", "index", "counts", "deep", "bytes"])
def test_a_damaged_row_reparses_its_file_and_keeps_the_others(workspace, data: bytes):
    built(workspace)
    with contextlib.closing(sqlite3.connect(cache_of(workspace))) as connection:
        connection.execute("UPDATE files SET data = ? WHERE path = 'src/ledger.py'", (data,))
        connection.commit()
    rewrite_keeping_stamp(workspace / "src" / "audit.py", AUDIT.replace("Auditor", "Checker"))
    restarted = built(workspace)
    assert "settle_balance" in names(restarted)  # parsed again
    assert "Auditor" in names(restarted)  # still from the cache
    assert "settle_balance" in names(built(workspace))  # and the row was written again


def test_the_cache_is_private(workspace):
    built(workspace)
    assert oct(cache_of(workspace).stat().st_mode & 0o777) == "0o600"
    assert oct(cache_of(workspace).parent.stat().st_mode & 0o777) == "0o700"


WORDS = st.text(alphabet=st.sampled_from('ab_Z9 "\\\x00é{}'), max_size=8)
DEFINITIONS = st.builds(
    Definition, name=WORDS, qualname=WORDS, kind=st.sampled_from(["class", "method"]),
    start=st.integers(1, 10**6), end=st.integers(1, 10**6), doc=st.sets(WORDS),
    body=st.sets(WORDS), refs=st.sets(WORDS), bases=st.lists(WORDS, max_size=3),
).filter(lambda d: d.start <= d.end)  # as a parse gives them: a row ending first is damaged


@given(definitions=st.lists(DEFINITIONS, max_size=4),
       references=st.dictionaries(WORDS, st.integers(1, 10**9)),
       literals=st.lists(st.tuples(st.integers(1, 10**6), st.lists(WORDS, max_size=3))),
       extra=st.integers(0, 10**6))
def test_what_is_stored_reads_back_the_same(definitions: list[Definition],
                                            references: dict[str, int],
                                            literals: list[tuple[int, list[str]]],
                                            extra: int) -> None:
    # as a parse gives them: every line within the file's (a row naming more is damaged)
    lines = max([d.end for d in definitions] + [n for n, _ in literals] + [0]) + extra
    symbols = FileSymbols(path="a/b.py", language="python", lines=lines,
                          definitions=definitions, references=references, literals=literals)
    data, packed = cache.encode(symbols)
    assert cache.decode("a/b.py", "python", lines, data, packed, 10**8) == symbols
