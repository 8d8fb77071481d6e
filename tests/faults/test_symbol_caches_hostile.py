"""A hostile workspace's symbol caches (`.swetui/symbols/map.sqlite` and `vectors.sqlite`):
a FIFO, a link leading outside, a foreign index or a file busy in another session never hangs
a request or the map's save, is never read or written through, never runs foreign SQL and
never loses the kept rows. Found by the session-7 attack (tests/faults/test_attack_s7.py on
branch h7-attack)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from swetui.engine.symbols import cache
from swetui.engine.symbols.semantic_store import VectorStore
from swetui.engine.symbols.symbol_map import SymbolMap

BOUND = 30.0
"""Bounds a wedged call (a correct one returns in milliseconds); not a speed requirement."""
DIM = 8


def _unit() -> np.ndarray:
    vector = np.ones(DIM, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def _finishes(call: Callable[[], object], fifo: Path) -> bool:
    """Whether `call` returns within BOUND; a writer wedged on `fifo` is then released (a
    reader opens it) so no thread is left behind."""
    done = threading.Event()

    def run() -> None:
        try:
            call()
        finally:
            done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    finished = done.wait(BOUND)
    if not finished:
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        thread.join(BOUND)
        os.close(reader)
    return finished


# -- 1. the on-disk caches of a hostile workspace -----------------------------------------

def test_a_vector_cache_that_is_a_fifo_does_not_hang_retrieval(tmp_path: Path) -> None:
    """HIGH: `mkfifo .swetui/symbols/vectors.sqlite` in a cloned workspace wedges every
    described request (swetui run never ends; the TUI shows 'working' until esc)."""
    folder = tmp_path / ".swetui" / "symbols"
    folder.mkdir(parents=True)
    fifo = folder / "vectors.sqlite"
    os.mkfifo(fifo)
    store = VectorStore(fifo, "model", DIM)
    assert _finishes(lambda: store.get([b"k" * 32]), fifo), "VectorStore.get hung on a FIFO"


def test_a_map_cache_that_is_a_fifo_does_not_hang_its_save(tmp_path: Path) -> None:
    """MEDIUM: a FIFO named map.sqlite wedges the map's save thread for ever."""
    (tmp_path / "app.py").write_text("def handler():\n    pass\n")
    folder = tmp_path / ".swetui" / "symbols"
    folder.mkdir(parents=True)
    fifo = folder / "map.sqlite"
    os.mkfifo(fifo)
    symbols = SymbolMap(tmp_path, cache_path=fifo)

    def build_and_save() -> None:
        symbols.build()
        symbols.save()

    assert _finishes(build_and_save, fifo), \
        "the symbol map's build/save hung on a FIFO"


def test_a_vector_cache_linked_outside_the_workspace_is_not_written(tmp_path: Path) -> None:
    """MEDIUM: vectors.sqlite -> a file outside the workspace: swetui writes its tables
    into that file (any empty file the user can write, e.g. another tool's state)."""
    workspace, outside = tmp_path / "ws", tmp_path / "elsewhere.db"
    folder = workspace / ".swetui" / "symbols"
    folder.mkdir(parents=True)
    outside.write_bytes(b"")
    (folder / "vectors.sqlite").symlink_to(outside)
    store = VectorStore(folder / "vectors.sqlite", "model", DIM)
    store.put({b"k" * 32: _unit()})
    store.close()
    assert outside.read_bytes() == b"", "swetui wrote its vector cache outside the workspace"


def test_a_vector_cache_linked_to_another_store_is_neither_read_nor_written(
        tmp_path: Path) -> None:
    """MEDIUM: a link to another project's (or a crafted) vectors.sqlite is trusted: its
    rows are used for ranking and new rows are written into it."""
    workspace, outside = tmp_path / "ws", tmp_path / "other" / "vectors.sqlite"
    outside.parent.mkdir()
    planted = VectorStore(outside, "model", DIM)
    planted.put({b"p" * 32: _unit()})
    planted.close()
    before = outside.read_bytes()
    folder = workspace / ".swetui" / "symbols"
    folder.mkdir(parents=True)
    (folder / "vectors.sqlite").symlink_to(outside)
    store = VectorStore(folder / "vectors.sqlite", "model", DIM)
    found = store.get([b"p" * 32])
    store.put({b"n" * 32: _unit()})
    store.close()
    assert not found, "vectors read through a link leading outside the workspace"
    assert outside.read_bytes() == before, "vectors written through a link outside"


def test_a_symbols_folder_linked_outside_gets_no_cache_files(tmp_path: Path) -> None:
    """MEDIUM: `.swetui/symbols` -> a folder outside the workspace (`.swetui` itself a link
    is refused, its sub-folder is not): map.sqlite and vectors.sqlite land there."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / "app.py").write_text("def handler():\n    pass\n")
    (workspace / ".swetui").mkdir()
    (workspace / ".swetui" / "symbols").symlink_to(outside)
    symbols = SymbolMap(workspace, cache_path=workspace / ".swetui" / "symbols" / "map.sqlite")
    symbols.build()
    symbols.save()
    store = VectorStore(workspace / ".swetui" / "symbols" / "vectors.sqlite", "model", DIM)
    store.put({b"k" * 32: _unit()})
    store.close()
    assert list(outside.iterdir()) == [], "cache files written outside the workspace"


EVIL_INDEX = "CREATE INDEX evil ON {table}(length(hex(zeroblob(100000000))))"
"""An index whose expression allocates 200 MB for every row written (trusted_schema off
still allows built-in functions): 0.5 s of CPU and +500 MB per vector stored, measured."""


def _saved_map(root: Path) -> Path:
    """The cache of a one-function workspace, built and saved."""
    (root / "app.py").write_text("def handler():\n    pass\n")
    path = root / ".swetui" / "symbols" / "map.sqlite"
    symbols = SymbolMap(root, cache_path=path)
    symbols.build()
    symbols.save()
    return path


def _indexes(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")]


def test_a_vector_cache_with_a_foreign_index_is_started_again(tmp_path: Path) -> None:
    """MEDIUM-HIGH: the schema check skips indexes, so a shipped vectors.sqlite (of the
    public model id) with an expression index is trusted; every put then runs the
    attacker's expression (a described request embeds tens of definitions: minutes of CPU
    and GBs of memory)."""
    path = tmp_path / ".swetui" / "symbols" / "vectors.sqlite"
    seeded = VectorStore(path, "model", DIM)
    seeded.put({b"a" * 32: _unit()})
    seeded.close()
    with sqlite3.connect(path) as connection:
        connection.execute(EVIL_INDEX.format(table="vectors").replace("100000000", "1"))
    store = VectorStore(path, "model", DIM)
    store.put({b"b" * 32: _unit()})
    store.close()
    assert "evil" not in _indexes(path), "a foreign index in vectors.sqlite was kept"


def test_a_map_cache_with_a_foreign_index_is_rebuilt(tmp_path: Path) -> None:
    """MEDIUM: the same hole in map.sqlite's check (`row[0] != "index"` is skipped)."""
    path = _saved_map(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute(EVIL_INDEX.format(table="files").replace("100000000", "1"))
    (tmp_path / "more.py").write_text("def other():\n    pass\n")
    second = SymbolMap(tmp_path, cache_path=path)
    second.build()
    second.save()
    assert "evil" not in _indexes(path), "a foreign index in map.sqlite was kept"


def test_a_vector_cache_busy_in_another_session_is_not_deleted(tmp_path: Path) -> None:
    """LOW-MEDIUM: two swetui on one workspace: when the other holds the write lock past
    the 5 s busy timeout, 'database is locked' is taken for a damaged file and
    vectors.sqlite is deleted (the other session then writes to an unlinked file; every
    kept vector is lost). SymbolMap.save does the same for map.sqlite (OperationalError is
    a DatabaseError)."""
    path = tmp_path / ".swetui" / "symbols" / "vectors.sqlite"
    seeded = VectorStore(path, "model", DIM)
    seeded.put({b"a" * 32: _unit()})
    seeded.close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the other session, writing
    try:
        store = VectorStore(path, "model", DIM)
        store.put({b"b" * 32: _unit()})
        store.close()
    finally:
        other.execute("ROLLBACK")
        other.close()
    again = VectorStore(path, "model", DIM)
    assert again.get([b"a" * 32]), "the kept vectors were deleted because the file was busy"
    again.close()


def test_a_map_cache_busy_in_another_session_is_not_deleted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two swetui on one workspace: when the other holds map.sqlite's write lock past the
    busy wait, the save is put off (its rows written at the next save), not taken for a
    damaged file, deleted and written anew (the other session's write then went to the
    deleted file and was lost)."""
    monkeypatch.setattr(cache, "BUSY_WAIT", 0.05)  # the other session does not let go here
    path = _saved_map(tmp_path)
    (tmp_path / "more.py").write_text("def other():\n    pass\n")
    second = SymbolMap(tmp_path, cache_path=path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the other session, writing
    try:
        other.execute("INSERT INTO files SELECT 'theirs.py', size, mtime, language, lines, "
                      "data, literals FROM files WHERE path = 'app.py'")
        second.build()
        other.execute("COMMIT")
    finally:
        other.close()
    assert {"app.py", "theirs.py"} <= set(cache.load(path)), \
        "the other session's write was lost: the busy file was deleted"
    second.save()  # the lock is gone: what was put off is written now
    assert {"app.py", "more.py", "theirs.py"} <= set(cache.load(path))


def test_a_vector_cache_hard_linked_to_another_file_is_not_written(tmp_path: Path) -> None:
    """A hard link has no link to follow: vectors.sqlite as a second name of a file outside
    the workspace would have SQLite write into that file. Only the name in the workspace is
    removed and the cache started there."""
    workspace, outside = tmp_path / "ws", tmp_path / "elsewhere.db"
    folder = workspace / ".swetui" / "symbols"
    folder.mkdir(parents=True)
    outside.write_bytes(b"")
    os.link(outside, folder / "vectors.sqlite")
    store = VectorStore(folder / "vectors.sqlite", "model", DIM)
    store.put({b"k" * 32: _unit()})
    store.close()
    assert outside.read_bytes() == b"", "the vector cache was written into another file"
    again = VectorStore(folder / "vectors.sqlite", "model", DIM)
    assert again.get([b"k" * 32]), "the vectors were not kept in the workspace"
    again.close()


def test_a_map_cache_journal_linked_outside_is_not_written(tmp_path: Path) -> None:
    """SQLite writes its rollback journal beside the file, by name: `map.sqlite-journal`
    linked to a file outside must not receive the map's pages. (SQLite 3.40 refuses a
    linked journal itself; swetui removes the link before opening, so the save succeeds.)"""
    workspace, outside = tmp_path / "ws", tmp_path / "notes.txt"
    workspace.mkdir()
    (workspace / "app.py").write_text("def handler():\n    pass\n")
    outside.write_text("the user's notes\n")
    path = workspace / ".swetui" / "symbols" / "map.sqlite"
    path.parent.mkdir(parents=True)
    path.with_name("map.sqlite-journal").symlink_to(outside)
    symbols = SymbolMap(workspace, cache_path=path)
    symbols.build()
    assert outside.read_text() == "the user's notes\n", "the map's journal went outside"
    assert "app.py" in cache.load(path)


def test_a_map_cache_locked_while_read_is_not_deleted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another session committing (an exclusive lock) while this one starts: the map is
    built without the cache this time, and the kept file is not taken for damaged."""
    monkeypatch.setattr(cache, "BUSY_WAIT", 0.05)  # the other session does not let go here
    path = _saved_map(tmp_path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        inode = path.stat().st_ino
        assert dict(cache.entries(path)) == {}  # busy: nothing read this time
        assert path.exists() and path.stat().st_ino == inode, "a busy map cache was deleted"
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert "app.py" in cache.load(path)


def test_a_map_cache_shipped_in_write_ahead_mode_is_not_opened(tmp_path: Path) -> None:
    """LOW: a clone ships map.sqlite in write-ahead mode with a -wal beside it: SQLite would
    replay the shipped log into the cache and map shared memory beside it. Our caches never
    use write-ahead logging, so such a file is started again and the log removed unread."""
    path = _saved_map(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
    assert path.read_bytes()[18:20] == b"\x02\x02"
    (path.parent / "map.sqlite-wal").write_bytes(b"shipped log")
    second = SymbolMap(tmp_path, cache_path=path)
    second.build()
    second.save()
    assert path.read_bytes()[18:20] == b"\x01\x01", "the write-ahead database was kept"
    assert not (path.parent / "map.sqlite-wal").exists()
    assert "handler" in {d.name for s in second.index().by_file.values() for d in s.definitions}
