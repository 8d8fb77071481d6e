"""The file ranking kept beside the map in its cache: a restart whose files are all as they
were ranked (same paths, sizes and modification times) takes the ranks from the cache
instead of running the ranking again, which at 10,000 files is about a sixth of a restart's
CPU and its highest memory (the ranking's edges and arrays while its rounds run).

The ranks are stored with a fingerprint of what they rank (every path with its stamp, and
the ranking's version); any other map, changed by a single file, ranks anew. The row is
untrusted input like the rest of the cache: ranks that are not finite, negative, or not one
per file are not used."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import sqlite3
from array import array
from pathlib import Path

from swetui.engine.symbols import cache, cache_file
from swetui.engine.symbols.cache import CacheUnusable, Entry

log = logging.getLogger(__name__)

RANKING_VERSION = b"file_rank 1"
"""Changed with the ranking (`file_rank`): ranks of an older ranking are not used."""


def fingerprint(files: dict[str, Entry]) -> bytes:
    """What the ranks of `files` depend on: each path and the stamp it was read at."""
    digest = hashlib.blake2b(RANKING_VERSION, digest_size=32)
    for rel in sorted(files):
        size, mtime = files[rel][1]
        digest.update(f"{rel}\0{size}\0{mtime}\0".encode("utf-8", "surrogatepass"))
    return digest.digest()


def load(path: Path, files: dict[str, Entry]) -> dict[str, float] | None:
    """The stored ranks of exactly these files (in their order), or None when the cache
    holds none for them (or unusable ones)."""
    try:
        if not cache_file.prepare(path, create=False):
            return None
        with contextlib.closing(cache.connect(path)) as connection:
            cache.check(connection)
            row = connection.execute(
                "SELECT fingerprint, ranks FROM ranks WHERE typeof(fingerprint) = 'blob' "
                "AND typeof(ranks) = 'blob' AND length(ranks) = ? LIMIT 1",
                (8 * len(files),)).fetchone()
    except (OSError, sqlite3.Error, CacheUnusable) as exc:
        log.info("symbol map cache %s: stored ranks not read (%s)", path, exc)
        return None
    if row is None or row[0] != fingerprint(files):
        return None
    ranks = array("d")
    ranks.frombytes(row[1])
    if not all(math.isfinite(rank) and rank >= 0.0 for rank in ranks):
        log.warning("symbol map cache %s: stored ranks out of range, ranked again", path)
        return None
    by_path = dict(zip(sorted(files), ranks, strict=True))
    return {rel: by_path[rel] for rel in files}


def save(path: Path, files: dict[str, Entry], ranks: dict[str, float]) -> None:
    """Keep `ranks` (of every file of `files`) for the next start. Never raises: ranks not
    kept are computed again."""
    if ranks.keys() != files.keys():
        return
    row = (fingerprint(files), array("d", (ranks[rel] for rel in sorted(files))).tobytes())
    try:
        cache.create(path)
        with contextlib.closing(cache.connect(path)) as connection:
            cache.check(connection)
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute("DELETE FROM ranks")
                connection.execute("INSERT INTO ranks VALUES (?, ?)", row)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
    except (OSError, sqlite3.Error, CacheUnusable) as exc:
        log.info("symbol map cache %s: ranks not kept (%s)", path, exc)
