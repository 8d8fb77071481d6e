"""Where the symbol caches (`.swetui/symbols/map.sqlite`, `vectors.sqlite`) may be opened.

A cloned workspace can ship anything under that name: a FIFO (opening it for writing waits
for ever), a link to a file outside the workspace (SQLite would read it and write into it),
a hard link to another file, or a `.swetui/symbols` folder that is itself a link. A folder
reached through a link is never used (nothing is read, written or deleted there); a cache
file or SQLite journal that is not a plain file of its own (a link, FIFO, device, hard link)
is removed, so SQLite makes a regular one in its place. What was shipped is never opened."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

from swetui.paths import FILE_MODE, WORKSPACE_DIR, private_dir

MASTER = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
"""The whole schema of a file: tables, indexes, triggers and views."""
SIDE_FILES = ("-journal", "-wal", "-shm")
"""What SQLite opens beside a database, by the database's name plus these."""
WAL_FILES = ("-wal", "-shm")
"""Our caches keep a rollback journal (a hot one after a crash is SQLite's to roll back);
a write-ahead log or its shared memory beside them was shipped, not left by us."""
HEADER = b"SQLite format 3\x00"
WAL_VERSION = 2
"""Bytes 18 and 19 of a database's header: 1 for a rollback journal, 2 for write-ahead."""


def schema_of(statements: tuple[str, ...]) -> list[tuple[object, ...]]:
    """What sqlite_master holds in a file made by `statements` (their tables and the
    indexes SQLite makes for them): a cache whose schema differs is not ours."""
    with contextlib.closing(sqlite3.connect(":memory:")) as connection:
        for sql in statements:
            connection.execute(sql)
        return connection.execute(MASTER).fetchall()


def busy(exc: BaseException) -> bool:
    """Whether `exc` says another connection holds the file's lock (not damage)."""
    return isinstance(exc, sqlite3.OperationalError) and \
        any(word in str(exc) for word in ("locked", "busy"))


class UnsafeLocation(OSError):
    """The cache's folder is reached through a link (or is no folder): it is not used."""


def _checked_folders(path: Path) -> None:
    """Raise UnsafeLocation when a folder from the workspace's `.swetui` (the nearest one in
    `path`; without one, the cache's own folder) down to the cache's is a link or no folder.
    A folder not made yet is fine: it is created as a real one."""
    parts = path.parent.parts
    top = len(parts) - 1 - parts[::-1].index(WORKSPACE_DIR) if WORKSPACE_DIR in parts \
        else len(parts) - 1
    for end in range(top + 1, len(parts) + 1):
        folder = Path(*parts[:end])
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(info.st_mode):
            raise UnsafeLocation(errno.ENOTDIR,
                                 f"{folder} is a link or not a folder: the cache is not kept")


def _own_file(path: Path) -> bool:
    """Whether `path` is missing or a regular file with no other name; anything else there
    (a link, FIFO, device, hard link) is removed. A folder there raises UnsafeLocation."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(info.st_mode):
        raise UnsafeLocation(errno.EISDIR, f"{path} is a folder: the cache is not kept")
    if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
        return True
    os.unlink(path)  # the name only: a link's target or a hard link's other name is untouched
    return False


def _write_ahead(path: Path) -> bool:
    """Whether the regular file `path` is a database in write-ahead mode, which our caches
    never are: it is removed (opening it would make SQLite map shared memory beside it and
    replay a shipped log into it), and the cache starts again."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        head = os.read(fd, 20)
    finally:
        os.close(fd)
    if head.startswith(HEADER) and WAL_VERSION in head[18:20]:
        os.unlink(path)
        return True
    return False


def prepare(path: Path, *, create: bool) -> bool:
    """Make `path` safe for SQLite to open: whether a usable cache file is there now.
    With `create`, a missing one is created 0600 (in a private folder made on the way).
    Raises UnsafeLocation (an OSError) when the folder must not be used."""
    _checked_folders(path)
    for side in SIDE_FILES:
        if _own_file(path.with_name(path.name + side)) and side in WAL_FILES:
            os.unlink(path.with_name(path.name + side))
    if _own_file(path) and not _write_ahead(path):
        return True
    if not create:
        return False
    private_dir(path.parent)
    _checked_folders(path)  # made meanwhile by someone else, as a link
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                 FILE_MODE)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafeLocation(errno.EINVAL, f"{path} is not a regular file")
    finally:
        os.close(fd)
    return True


def connect(path: Path, **options: Any) -> sqlite3.Connection:
    """`sqlite3.connect(path, **options)` to a cache file `prepare` made safe, and proof that
    SQLite opened that very file: a link swapped in after the check (even swapped back once
    SQLite followed it) raises UnsafeLocation, with nothing read from or written to where
    it led. The file is held open meanwhile, so its inode cannot be reused."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeLocation(errno.ELOOP, f"{path} became a link: not opened") from None
        raise
    try:
        held = os.fstat(fd)
        if not stat.S_ISREG(held.st_mode) or held.st_nlink != 1:
            raise UnsafeLocation(errno.EINVAL, f"{path} is not a plain file of its own")
        connection: sqlite3.Connection = sqlite3.connect(path, **options)
        try:
            connection.execute("PRAGMA schema_version").fetchone()  # the file is open now
            if not _opened_by_sqlite(path, held, fd):
                raise UnsafeLocation(errno.EINVAL, f"{path} was swapped while it was opened")
        except BaseException:
            connection.close()
            raise
        return connection
    finally:
        os.close(fd)


def _opened_by_sqlite(path: Path, held: os.stat_result, ours: int) -> bool:
    """Whether the name `path` still is the file `held` and, where /proc lists this
    process's open files, SQLite holds that file open too (not a link's target)."""
    try:
        now = os.lstat(path)
    except OSError:
        return False
    if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino) or not stat.S_ISREG(now.st_mode):
        return False
    try:
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return True  # no /proc (not Linux): the name check above is what there is
    for name in descriptors:
        if not name.isdigit() or int(name) == ours:
            continue
        try:
            info = os.stat(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (held.st_dev, held.st_ino):
            return True
    return False


def remove(path: Path) -> None:
    """Delete the cache `path` and SQLite's files beside it (names only, never through a
    folder reached by a link)."""
    with contextlib.suppress(UnsafeLocation):
        _checked_folders(path)
        for stale in (path, *(path.with_name(path.name + side) for side in SIDE_FILES)):
            with contextlib.suppress(OSError):
                stale.unlink()
