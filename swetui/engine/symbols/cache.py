"""The symbol map on disk (`.swetui/symbols/map.sqlite`): one row per file, with the size and
modification time it was read at, so a restart re-parses only what changed and a change
rewrites only its own row. Each row's symbols are a small JSON document whose strings are
stored once and referred to by number.

The file lives in the workspace, so it is read as untrusted input: a damaged, foreign or
older file is deleted and the map rebuilt, a damaged row re-parses its file, nothing in it
is ever executed (no pickle; SQLite with `trusted_schema` off and the schema checked: its
table and that table's index, nothing else). A FIFO, link or hard link in its place is
removed; a `.swetui/symbols` folder that is a link is not used (`cache_file`). A file busy
in another session is left alone (`busy`). Known secret values in string literals are
redacted before writing."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from swetui.engine.symbols import cache_file
from swetui.engine.symbols.compact import EMPTY, Literals, References, StemSet
from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.engine.symbols.generated import GENERATED, MINIFIED
from swetui.secrets import redact

log = logging.getLogger(__name__)

FORMAT = 10
"""Bumped when what is stored changes; a file of another format is deleted and rebuilt."""
MAX_ROW_BYTES = 8_000_000
ROW_PER_BYTE, ROW_SLACK = 8, 4096
"""A row is at most this many bytes per byte of its file, plus this: 4,761 files of
site-packages stay under 3 per byte plus 200. A larger row was planted (a 3-line file whose
row holds 300,000 stems: 20 of them kept 1.2 GB resident), so it is not read."""
SHARED_STEMS = 2
"""A definition's stem set of at most this many stems is one object with every other the
same (`decode`): a tenth of a restart's sets repeat one (`self`, `len`, a name's own
stems). 9 MB of a 10,000-file workspace's restart (271 -> 262 MB); sharing larger sets
saved less (up to 8 stems: 274 MB), the tuples they are found by leaving gaps no later
object of their sizes fills."""
MAX_COUNT = 1_000_000_000
"""More references to one name than a row's file could hold: the row was not written here."""
FILE_NAME = "map.sqlite"
"""The cache's name in `.swetui/symbols/`."""
OLDER = ("map.json",)
"""Caches of earlier formats, deleted when found."""

Stamp = tuple[int, int]
"""(size, mtime_ns) of a file when it was parsed."""
Entry = tuple[FileSymbols, Stamp]
LeftOut = tuple[str, Stamp]
"""Why a file was left out of the map after reading it (one of READ_REASONS), and its stamp
then: a restart does not read it again while the stamp holds."""
READ_REASONS = frozenset({GENERATED, MINIFIED})
"""Reasons found by reading a file (its path or size alone give the others, checked anew at
every start, so a rule that changes applies at once)."""

SCHEMA = ("CREATE TABLE files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, "
          "mtime INTEGER NOT NULL, language TEXT NOT NULL, lines INTEGER NOT NULL, "
          "data BLOB NOT NULL, literals BLOB NOT NULL)")
LEFT_OUT_SCHEMA = ("CREATE TABLE left_out (path TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                   "mtime INTEGER NOT NULL, reason TEXT NOT NULL)")
RANKS_SCHEMA = "CREATE TABLE ranks (fingerprint BLOB NOT NULL, ranks BLOB NOT NULL)"
"""The file ranking of the whole map as it was last indexed (`stored_ranks`), one row."""
BUSY_WAIT = 5.0
"""Seconds a read or write waits for another session's write to the file; then it is put
off (`busy`), the file left as it is."""


class CacheUnusable(Exception):
    """The cache file cannot be used as it is (damaged, foreign or of another format)."""


def encode(symbols: FileSymbols) -> tuple[bytes, bytes]:
    """One file's symbols as a compact JSON document, [strings, definitions, references],
    every name and stem stored once and referred to by its number; and its literals as
    they are kept (`Literals.packed`), their parts redacted."""
    strings: dict[str, None] = dict.fromkeys(symbols.references)
    for d in symbols.definitions:
        strings.update(dict.fromkeys((d.name, d.qualname, d.kind, *d.bases)))
        strings.update(dict.fromkeys(d.doc))
        strings.update(dict.fromkeys(d.body))
        strings.update(dict.fromkeys(d.refs))
    number = {text: n for n, text in enumerate(strings)}.__getitem__
    definitions = [[number(d.name), number(d.qualname), number(d.kind), d.start, d.end,
                    list(map(number, d.doc)), list(map(number, d.body)),
                    list(map(number, d.refs)), list(map(number, d.bases))]
                   for d in symbols.definitions]
    references = [list(map(number, symbols.references)), list(symbols.references.values())]
    return json.dumps([list(strings), definitions, references], separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8"), _redacted(symbols.literals)


def _redacted(literals: Literals) -> bytes:
    """The literals' packed bytes, with every known secret value redacted in their parts."""
    lines, counts, raw_parts = literals.columns()
    parts = list(map(redact, raw_parts))
    if parts == raw_parts:
        return literals.packed
    return Literals.from_columns(lines, counts, map(len, parts), "".join(parts)).packed


def decode(rel: str, language: str, lines: int, data: bytes, literals: bytes,
           limit: int, shared: dict[tuple[str, ...], StemSet] | None = None) -> FileSymbols:
    """The symbols `encode` wrote (the literals unpacking to at most `limit` bytes); raises
    ValueError, TypeError, IndexError, KeyError or OverflowError on anything else (strings
    are shared with every other file's through `sys.intern`; small stem sets with the
    files' decoded before with the same `shared`)."""
    strings, definitions, references = json.loads(data)
    table = list(map(sys.intern, strings))
    text = table.__getitem__
    new = tuple.__new__  # StemSet(…) without a Python call per set: a third of decoding
    known = {} if shared is None else shared

    def stems(numbers: list[int]) -> StemSet:
        if not numbers:
            return EMPTY
        members = tuple({*map(text, numbers)})
        if len(members) > SHARED_STEMS:
            return new(StemSet, members)
        one: StemSet | None = known.get(members)
        if one is None:
            one = known[members] = new(StemSet, members)
        return one

    found = [Definition(text(n), text(q), text(k), int(s), int(e), stems(doc), stems(body),
                        stems(refs), tuple(map(text, bases)))
             for n, q, k, s, e, doc, body, refs, bases in definitions]
    names, counts = references
    if len(names) != len(counts):
        raise ValueError("references and counts differ in length")
    symbols = FileSymbols(path=rel, language=language, lines=int(lines), definitions=found,
                          references=References.from_columns(map(text, names), counts),
                          literals=Literals.from_packed(literals, limit, int(lines) + 1))
    _check_numbers(symbols)
    return symbols


def _check_numbers(symbols: FileSymbols) -> None:
    """Raise ValueError unless the row's numbers are ones a parse gives: lines from 1, a
    definition ending at or after its first line, each reference counted at least once and
    at most MAX_COUNT times, every line within the file's line count (one more for a last
    line without its line feed). A planted row (a shipped map.sqlite whose size and time match
    the file, as an archive keeps them) could otherwise send a block of no lines, the
    file's last lines under a definition's name (negative lines index from the end), or
    make the file ranking's square root raise on every look-up."""
    last = symbols.lines + 1
    if not 0 <= symbols.lines <= MAX_COUNT:  # (the literals' lines: `Literals.from_packed`)
        raise ValueError("line numbers out of range")
    for definition in symbols.definitions:
        if not 1 <= definition.start <= definition.end <= last:
            raise ValueError("a definition's lines out of range")
    if symbols.references and not 1 <= min(symbols.references.values()) \
            <= max(symbols.references.values()) <= MAX_COUNT:
        raise ValueError("a reference count out of range")


@functools.cache
def expected_schema() -> list[tuple[object, ...]]:
    """What sqlite_master holds in a file this module made (its table and its index)."""
    return cache_file.schema_of((SCHEMA, LEFT_OUT_SCHEMA, RANKS_SCHEMA))


def connect(path: Path) -> sqlite3.Connection:
    connection = cache_file.connect(path, timeout=BUSY_WAIT, isolation_level=None)
    connection.execute("PRAGMA trusted_schema = OFF")  # nothing in the file runs SQL functions
    return connection


def check(connection: sqlite3.Connection) -> None:
    """Raise CacheUnusable unless the file holds exactly swetui's table of this format."""
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    schema = connection.execute(cache_file.MASTER).fetchall()
    if version != FORMAT or schema != expected_schema():
        raise CacheUnusable(f"format {version}, not {FORMAT}, or a schema swetui did not write")


def create(path: Path) -> None:
    """Make the cache file with swetui's tables if it is not there (`prepare`d)."""
    if not cache_file.prepare(path, create=False):
        _create(path)


def remove(path: Path, why: str) -> None:
    """Delete an unusable cache (and SQLite's journal of it), saying why in the log."""
    log.warning("symbol map cache %s %s; rebuilding the map", path, why)
    cache_file.remove(path)


def remove_older(folder: Path) -> None:
    """Delete caches of earlier formats, and the temp files their writes left behind."""
    try:
        leftovers = [p for p in folder.iterdir()
                     if p.name in OLDER or any(p.name.startswith(f".{name}.") for name in OLDER)]
    except OSError:
        return
    for leftover in leftovers:
        try:
            leftover.unlink()
        except OSError as exc:
            log.warning("could not remove %s: %s", leftover, exc)


def load(path: Path) -> dict[str, Entry]:
    """Every stored file's symbols and stamp (see `entries`)."""
    return dict(entries(path))


def entries(path: Path) -> Iterator[tuple[str, Entry]]:
    """Each stored file's symbols and stamp, in the order they were written (a build's
    order: the files most likely to matter first). A missing file gives nothing; a damaged,
    foreign or older one is deleted (the map is then built from scratch); a damaged row is
    left out (its file is parsed again). A folder reached through a link or a file busy in
    another session gives nothing and is left as it is."""
    try:
        present = cache_file.prepare(path, create=False)
    except OSError as exc:
        log.warning("symbol map cache %s not read: %s", path, exc)
        return
    remove_older(path.parent)
    if not present:
        return
    shared: dict[tuple[str, ...], StemSet] = {}  # dropped when the rows are read
    try:
        with contextlib.closing(connect(path)) as connection:
            check(connection)
            rows = connection.execute(
                "SELECT path, size, mtime, language, lines, data, literals FROM files "
                "WHERE typeof(path) = 'text' AND typeof(size) = 'integer' "
                "AND typeof(mtime) = 'integer' AND typeof(lines) = 'integer' "
                "AND typeof(data) = 'blob' AND typeof(literals) = 'blob' "  # else not ours
                "AND length(data) + length(literals) <= ? "
                "AND length(data) + length(literals) <= ? * size + ? ORDER BY rowid",
                (MAX_ROW_BYTES, ROW_PER_BYTE, ROW_SLACK))
            for rel, size, mtime, language, lines, data, literals in rows:
                try:
                    symbols = decode(rel, language, lines, data, literals,
                                     ROW_PER_BYTE * size + ROW_SLACK, shared)
                except (ValueError, TypeError, IndexError, KeyError, OverflowError, RecursionError):
                    log.warning("symbol map cache: the entry of %r is damaged", rel)
                    continue
                yield rel, (symbols, (int(size), int(mtime)))
    except cache_file.UnsafeLocation as exc:  # swapped for a link as it was opened
        log.warning("symbol map cache %s not read: %s", path, exc)
    except (sqlite3.Error, CacheUnusable) as exc:
        if cache_file.busy(exc):
            log.info("symbol map cache %s busy; not read this time", path)
            return
        remove(path, f"unusable ({exc})")


def stamps(path: Path) -> dict[str, Stamp]:
    """The stamp of every file the cache holds a row for (mapped or left out), without
    reading the rows: what a start compares with the files to know how much it must parse.
    A missing, busy or unusable file gives nothing."""
    rows = _read(path, "SELECT path, size, mtime FROM files UNION ALL "
                       "SELECT path, size, mtime FROM left_out", "stamps")
    return {rel: (size, mtime) for rel, size, mtime in rows
            if isinstance(rel, str) and isinstance(size, int) and isinstance(mtime, int)}


def left_out(path: Path) -> dict[str, LeftOut]:
    """The files a build read and left out (generated or minified by their content), with
    their stamps then. Rows of another type or reason were not written here and are not
    read; a missing, busy or unusable file gives nothing (`entries` deals with it)."""
    rows = _read(path, "SELECT path, size, mtime, reason FROM left_out WHERE typeof(path) = "
                       "'text' AND typeof(size) = 'integer' AND typeof(mtime) = 'integer'",
                 "left-out files")
    return {rel: (reason, (size, mtime)) for rel, size, mtime, reason in rows
            if reason in READ_REASONS}


def _read(path: Path, query: str, what: str) -> list[Any]:
    """The rows `query` selects from the cache; none from a missing, busy or unusable file
    (said in the log)."""
    try:
        if not cache_file.prepare(path, create=False):
            return []
        with contextlib.closing(connect(path)) as connection:
            check(connection)
            return connection.execute(query).fetchall()
    except (OSError, sqlite3.Error, CacheUnusable) as exc:
        log.info("symbol map cache %s: %s not read (%s)", path, what, exc)
        return []


def _create(path: Path) -> None:
    cache_file.prepare(path, create=True)
    with contextlib.closing(connect(path)) as connection:
        if connection.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,):
            connection.execute("BEGIN")
            connection.execute(SCHEMA)
            connection.execute(LEFT_OUT_SCHEMA)
            connection.execute(RANKS_SCHEMA)
            connection.execute(f"PRAGMA user_version = {FORMAT}")
            connection.execute("COMMIT")


def save(path: Path, files: dict[str, Entry], changed: Iterable[str],
         left: dict[str, LeftOut] | None = None) -> None:
    """Write the rows of the `changed` paths: their symbols from `files`, or why they were
    left out from `left`; those in neither are deleted. In one transaction: a kill leaves
    the rows as they were before it. Rows are encoded one at a time as they are written,
    never all held at once. Raises OSError (also
    `cache_file.UnsafeLocation`: the folder is not used), sqlite3.Error (`busy` tells a file
    locked by another session from a damaged one) or CacheUnusable."""
    if not cache_file.prepare(path, create=False):
        _create(path)
    changed, left = list(changed), left or {}
    gone = [(rel,) for rel in changed if rel not in files]
    cleared = [(rel,) for rel in changed if rel not in left]
    skipped = [(rel, size, mtime, reason) for rel in changed if rel in left
               for reason, (size, mtime) in (left[rel],)]
    rows = ((rel, size, mtime, symbols.language, symbols.lines, *encode(symbols))
            for rel in changed if rel in files
            for symbols, (size, mtime) in (files[rel],))
    with contextlib.closing(connect(path)) as connection:
        check(connection)
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.executemany("DELETE FROM files WHERE path = ?", gone)
            connection.executemany("DELETE FROM left_out WHERE path = ?", cleared)
            connection.executemany("INSERT OR REPLACE INTO left_out VALUES (?, ?, ?, ?)",
                                   skipped)
            connection.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   rows)
            sys.audit("swetui.symbols.cache.commit", str(path))  # a test kills here
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
