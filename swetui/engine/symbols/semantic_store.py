"""Definition vectors on disk (`.swetui/symbols/vectors.sqlite`, beside the symbol map's
cache), so a restart does not embed again what an earlier session embedded. A row is keyed
by the SHA-256 of the text embedded (a definition's name, comments and head as read from its
file, so an edit changes the key) and the file by the model that made its vectors (the
weights' SHA-256): another model's vectors are never used. The texts are not stored.

The file lives in the workspace and is read as untrusted input: a damaged, foreign or
older-format file (or one of another model) is deleted and started again; a row that is not
a unit vector of the model's size is ignored and deleted; nothing in it is executed (no
pickle; SQLite with `trusted_schema` off, the schema checked: exactly our tables and their
indexes, nothing else). A FIFO, link or hard link in its place is removed and the file
started again; a `.swetui/symbols` folder that is a link is not used (`cache_file`)."""

from __future__ import annotations

import contextlib
import functools
import logging
import sqlite3
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt

from swetui.engine.symbols import cache_file
from swetui.engine.symbols.semantic_text import text_key

__all__ = ["VectorStore", "text_key"]

log = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]

FORMAT = 1
MAX_ROWS = 60_000
"""Vectors kept (1.5 KB each, about 90 MB); the oldest written go first."""
NORM_TOLERANCE = 1e-3
BUSY_WAIT = 0.2
"""Seconds a read or write waits for another session's write to the same file; then it is
skipped (the vectors stay in memory): a request never waits on the file longer."""
SCHEMA = ["CREATE TABLE meta (model TEXT NOT NULL, dimension INTEGER NOT NULL)",
          "CREATE TABLE vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)"]


@functools.cache
def expected_schema() -> list[tuple[object, ...]]:
    """What sqlite_master holds in a file this module made (its tables and their indexes)."""
    return cache_file.schema_of(tuple(SCHEMA))


class StoreUnusable(Exception):
    """The file cannot be used as it is."""


class VectorStore:
    """Vectors of one model in one SQLite file; every failure of the file is logged and the
    file started again (or, when that fails too, the store does nothing): a request never
    fails because of it."""

    def __init__(self, path: Path, model: str, dimension: int, *,
                 limit: int = MAX_ROWS) -> None:
        self.path = path
        self.limit = limit
        self.model = model
        self.dimension = dimension
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._broken = False

    def get(self, keys: list[bytes]) -> dict[bytes, Vector]:
        """The stored vectors of these keys (unusable rows are left out and deleted)."""
        found: dict[bytes, Vector] = {}
        bad: list[tuple[bytes]] = []
        with self._lock:
            connection = self._open()
            if connection is None or not keys:
                return found
            try:
                for start in range(0, len(keys), 500):
                    chunk = keys[start:start + 500]
                    marks = ",".join("?" * len(chunk))
                    # A row of the wrong size comes back as NULL, its blob never read (a
                    # 200 MB row under a matching key cost 600 MB to reject after reading).
                    for key, blob in connection.execute(
                            "SELECT key, CASE WHEN typeof(vector) = 'blob' AND length(vector) = ?"
                            f" THEN vector END FROM vectors WHERE key IN ({marks})",
                            [4 * self.dimension, *chunk]):
                        vector = self._vector(blob)
                        if vector is None:
                            bad.append((key,))
                        else:
                            found[bytes(key)] = vector
                if bad:
                    log.warning("vector cache %s: %d damaged rows ignored", self.path, len(bad))
                    connection.executemany("DELETE FROM vectors WHERE key = ?", bad)
            except sqlite3.Error as exc:
                self._failed(exc)
                return {}
        return found

    def put(self, vectors: dict[bytes, Vector]) -> None:
        """Store these vectors (one transaction), dropping the oldest past `limit`."""
        with self._lock:
            connection = self._open()
            if connection is None or not vectors:
                return
            rows = [(key, np.asarray(vector, dtype="<f4").tobytes())
                    for key, vector in vectors.items()]
            try:
                connection.execute("BEGIN IMMEDIATE")
                connection.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
                connection.execute(
                    "DELETE FROM vectors WHERE rowid <= (SELECT max(rowid) FROM vectors) - ?",
                    (self.limit,))
                connection.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
                self._failed(exc)

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _vector(self, blob: object) -> Vector | None:
        if not isinstance(blob, bytes) or len(blob) != 4 * self.dimension:
            return None
        vector = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        if not np.all(np.isfinite(vector)) or \
                abs(float(np.linalg.norm(vector)) - 1.0) > NORM_TOLERANCE:
            return None
        return vector

    def _open(self) -> sqlite3.Connection | None:
        if self._connection is not None or self._broken:
            return self._connection
        for _attempt in range(2):
            try:
                self._connection = self._connect()
                return self._connection
            except sqlite3.OperationalError as exc:
                if cache_file.busy(exc):
                    return None  # another session is writing it: try again next time
                self._remove(f"unusable ({exc})")
            except cache_file.UnsafeLocation as exc:
                log.warning("vector cache %s not kept: %s", self.path, exc)
                break  # nothing is read, written or deleted there
            except (sqlite3.Error, StoreUnusable, OSError) as exc:
                self._remove(f"unusable ({exc})")
        self._broken = True  # cannot even create it: vectors stay in memory only
        return None

    def _connect(self) -> sqlite3.Connection:
        cache_file.prepare(self.path, create=True)
        connection = cache_file.connect(self.path, timeout=BUSY_WAIT, isolation_level=None,
                                        check_same_thread=False)
        try:
            connection.execute("PRAGMA trusted_schema = OFF")
            if connection.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,):
                connection.execute("BEGIN")
                for sql in SCHEMA:
                    connection.execute(sql)
                connection.execute("INSERT INTO meta VALUES (?, ?)", (self.model, self.dimension))
                connection.execute(f"PRAGMA user_version = {FORMAT}")
                connection.execute("COMMIT")
            self._check(connection)
        except BaseException:
            connection.close()
            raise
        return connection

    def _check(self, connection: sqlite3.Connection) -> None:
        (version,) = connection.execute("PRAGMA user_version").fetchone()
        schema = connection.execute(cache_file.MASTER).fetchall()
        if version != FORMAT or schema != expected_schema():
            raise StoreUnusable(f"format {version}, not {FORMAT}, or a schema swetui did "
                                "not write")
        meta = connection.execute("SELECT model, dimension FROM meta").fetchall()
        if meta != [(self.model, self.dimension)]:
            raise StoreUnusable("vectors of another model")

    def _failed(self, exc: sqlite3.Error) -> None:
        """A busy file (another session writing it) is left alone; any other failure means
        the file is unusable, and it is started again."""
        if cache_file.busy(exc):
            log.info("vector cache %s busy; skipped this time", self.path)
            return
        self._reset(f"unusable ({exc})")

    def _reset(self, why: str) -> None:
        if self._connection is not None:
            with contextlib.suppress(sqlite3.Error):
                self._connection.close()
            self._connection = None
        self._remove(why)

    def _remove(self, why: str) -> None:
        log.warning("vector cache %s %s; starting it again", self.path, why)
        cache_file.remove(self.path)
