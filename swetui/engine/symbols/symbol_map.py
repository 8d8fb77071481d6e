"""The workspace's symbol map: built once in the background (from the disk cache where files
are unchanged), updated file by file from the watcher, and indexed for look-ups and for the
ranked outline."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from swetui.engine.gc_pause import gc_paused
from swetui.engine.symbols import cache, cache_file, generated, stem_memo, stored_ranks
from swetui.engine.symbols.build_order import build_order
from swetui.engine.symbols.cache import CacheUnusable, Entry, LeftOut, Stamp
from swetui.engine.symbols.extract import FileSymbols, extract
from swetui.engine.symbols.languages import language_of
from swetui.engine.symbols.symbol_index import SymbolIndex as SymbolIndex  # re-exported
from swetui.engine.symbols.symbol_index import build_index as build_index
from swetui.engine.symbols.symbol_index import patched
from swetui.engine.workspace_tree import IGNORED_DIRS, MAX_SCAN_FILES, walk
from swetui.files import looks_binary, read_regular, refusal

log = logging.getLogger(__name__)

MAX_PARSE_BYTES = 1_000_000
"""Larger files (generated code, bundles) are left out of the map (`generated.TOO_LARGE`)."""
NOT_BUILT = "the symbol map could not be built"
"""The note a build that failed leaves (`notes`): the map child exits with an error on it."""
PUBLISH_EVERY = 200
"""Files read between two publications of the partial map during a build."""
SAVE_EVERY = 1_000
"""Files parsed between two writes to the cache during a build."""


def _stamp(path: Path) -> Stamp | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns) if os.path.isfile(path) else None


class SymbolMap:
    """Definitions, references and literals of every parsable file of a workspace."""

    def __init__(self, root: Path, *, cache_path: Path | None = None,
                 exclude: Callable[[str], bool] | None = None,
                 ignore: frozenset[str] = IGNORED_DIRS, max_files: int = MAX_SCAN_FILES,
                 publish_every: int = PUBLISH_EVERY) -> None:
        self.root = Path(os.path.realpath(root))
        self.cache_path = cache_path
        self.exclude = exclude
        self.ignore = ignore
        self.max_files = max_files
        self.publish_every = publish_every
        self.files: dict[str, Entry] = {}
        self.ready = threading.Event()
        self.notes: list[str] = []
        self.build_seconds = 0.0
        self.generation = 0
        self.building = False
        """Whether the first build runs (what the map holds is then partial)."""
        self.total = 0
        """Files the build maps (known once it has walked the workspace)."""
        self._published = 0
        self._lock = threading.Lock()
        self._indexing = threading.Lock()
        """Held while an index is built (`index`)."""
        self._index: tuple[int, SymbolIndex] | None = None
        self._unsaved: set[str] = set()
        """Paths whose entry changed (or went) since the cache was last written."""
        self.skipped: dict[str, LeftOut] = {}
        """Files left out of the map as generated, minified, vendored or too large: why
        (`generated`), and their stamp then. Changed under the lock, as `files` is."""

    # -- building --------------------------------------------------------------------------

    def build(self, first: Collection[str] = ()) -> None:
        """Parse every file (reusing the cache for unchanged ones); blocking: run it in a
        thread. The files read so far are published every `publish_every` files, so a
        look-up during the build searches them (`progress` says how far it got); the
        paths in `first` (files already in context) are parsed first, then source before
        tests before documentation, the newest first. `ready` is set when done, also after
        a failure (the map then holds what was parsed)."""
        started = time.perf_counter()
        self.building = True
        try:
            rels, cut = walk(self.root, self.ignore, self.max_files)
            if cut:
                self.notes.append(f"the symbol map covers the first {self.max_files:,} files")
            wanted = {rel for rel in rels if language_of(rel) is not None}
            self.total = len(wanted)
            stored: set[str] = set()
            files: dict[str, Entry] = {}
            skipped: dict[str, LeftOut] = {}
            in_cache: set[str] = set()
            with gc_paused(freeze=True):
                if self.cache_path is not None:
                    for rel, known in cache.entries(self.cache_path):
                        stored.add(rel)
                        if rel not in wanted:
                            continue
                        parsed, left = self._parse(rel, known)  # parsed again if it changed
                        if parsed is not None:
                            files[rel] = parsed
                            if parsed is known:
                                in_cache.add(rel)
                        elif left is not None:
                            skipped[rel] = left
                        self._publish(files, skipped)
                known_left = cache.left_out(self.cache_path) if self.cache_path else {}
                fresh: list[str] = []
                for rel in build_order(self.root, wanted - stored, first):
                    parsed, left = self._parse(rel, None, known_left.get(rel))
                    if parsed is not None:
                        files[rel] = parsed
                        fresh.append(rel)
                        if len(fresh) >= SAVE_EVERY:
                            in_cache.update(self._save_part(files, fresh))
                            fresh = []
                    elif left is not None:
                        skipped[rel] = left
                        if left is known_left.get(rel):
                            in_cache.add(rel)  # read at an earlier start: not read again
                    time.sleep(0)  # let the screen's thread in between two files
                    self._publish(files, skipped)
            changed = {rel for rel in (*files, *skipped) if rel not in in_cache}
            with self._lock:
                self.files, self.skipped = files, skipped
                self.generation += 1
                self.building = False
                self._unsaved |= changed | (stored - files.keys()) | \
                    (known_left.keys() - in_cache)
            self.save()
        except Exception:  # a broken map must never break a session: retrieval greps instead
            log.exception("building the symbol map failed")
            self.notes.append(NOT_BUILT)
        finally:
            if self.building:
                with self._lock:
                    self.building = False
                    self.generation += 1
            stem_memo.forget()  # what the build remembered of words is of little use now
            self.build_seconds = time.perf_counter() - started
            self.ready.set()

    def unread(self) -> int:
        """How many files a build would parse now (those without a row of their present
        size and time in the cache): a walk and a stat of each file, no row read."""
        rels, _cut = walk(self.root, self.ignore, self.max_files)
        stored = cache.stamps(self.cache_path) if self.cache_path is not None else {}
        unread = 0
        for rel in rels:
            if language_of(rel) is None or generated.by_path(rel) is not None:
                continue  # (secret files are counted: judging each name costs more)
            stamp = _stamp(self.root / rel)
            if stamp is not None and stamp[0] <= MAX_PARSE_BYTES and stored.get(rel) != stamp:
                unread += 1
        return unread

    def _save_part(self, files: dict[str, Entry], rels: list[str]) -> list[str]:
        """Write these newly parsed files to the cache during a build (a session closed
        before the build ends keeps them); returns those written (the rest are written at
        the end)."""
        if self.cache_path is None:
            return []
        try:
            cache.save(self.cache_path, files, rels)
        except (OSError, sqlite3.Error, CacheUnusable) as exc:
            log.warning("could not save part of the symbol map: %s", exc)
            return []
        return rels

    def _publish(self, files: dict[str, Entry], skipped: dict[str, LeftOut]) -> None:
        """Make the files read so far what look-ups see, each `publish_every` files."""
        if len(files) - self._published >= self.publish_every:
            self._published = len(files)
            with self._lock:
                self.files, self.skipped = dict(files), dict(skipped)
                self.generation += 1

    @property
    def progress(self) -> tuple[int, int] | None:
        """(files mapped, files to map) while the first build runs; None once it ended."""
        return (len(self.files), self.total) if self.building else None

    def update(self, rels: Iterable[str]) -> list[str]:
        """Re-read changed, new or deleted files (workspace-relative); returns the paths
        whose entry changed. The look-up tables are patched for those files alone, so the
        change is searchable at once; `save()` writes the cache (a whole-map write, so the
        caller decides how often)."""
        changes: list[tuple[str, FileSymbols | None, FileSymbols | None]] = []
        for rel in rels:
            if any(part in self.ignore for part in rel.split("/")[:-1]):
                continue
            with self._lock:
                old, was = self.files.get(rel), self.skipped.get(rel)
            parsed, left = self._parse(rel, old, was)
            if parsed is not old or left != was:  # a left-out file's note changes too
                changes.append((rel, old[0] if old else None, parsed[0] if parsed else None))
                with self._lock:
                    if parsed is None:
                        self.files.pop(rel, None)
                    else:
                        self.files[rel] = parsed
                    if left is None:
                        self.skipped.pop(rel, None)
                    else:
                        self.skipped[rel] = left
                    self._unsaved.add(rel)
        if changes:
            with self._lock:
                current = self._index
                self.generation += 1
                if current is not None and current[0] == self.generation - 1:
                    self._index = (self.generation, patched(current[1], changes))
                    self._index[1].skipped = _reasons(self.skipped)
        return [rel for rel, _old, _new in changes]

    def _parse(self, rel: str, known: Entry | None, left: LeftOut | None = None,
               ) -> tuple[Entry | None, LeftOut | None]:
        """The file's entry (`known` itself while its stamp holds), or why it is left out
        (`left` itself while its stamp holds: not read again); (None, None) for a file
        gone, unreadable, binary or not for the map. Changes nothing of the map's."""
        language = language_of(rel)
        if language is None or (self.exclude is not None and self.exclude(rel)):
            return None, None
        path = self.root / rel
        stamp = _stamp(path)
        if stamp is None:
            return None, None  # gone: named in no note
        if (reason := generated.by_path(rel)) is not None:
            return None, (reason, stamp)
        if stamp[0] > MAX_PARSE_BYTES:
            return None, (generated.TOO_LARGE, stamp)
        if known is not None and known[1] == stamp:
            return known, None
        if left is not None and left[1] == stamp and left[0] in cache.READ_REASONS:
            return None, left
        try:
            data, _size = read_regular(path, MAX_PARSE_BYTES, follow_symlinks=False,
                                       refuse=refusal(self.exclude))
        except OSError:
            return None, None
        if looks_binary(data):
            return None, None
        if (reason := generated.by_content(data)) is not None:
            return None, (reason, stamp)
        try:
            return (extract(rel, data, language), stamp), None
        except Exception:  # a grammar that fails on one odd file leaves that file out
            log.exception("could not parse %s", rel)
            return None, None

    def save(self) -> None:
        """Write the entries that changed since the last write to the cache on disk (one
        transaction: a kill leaves the cache as it was). A cache that turned unusable is
        written anew, whole."""
        if self.cache_path is None:
            return
        with self._lock:
            unsaved, self._unsaved = self._unsaved, set()
            files = {rel: self.files[rel] for rel in unsaved if rel in self.files}
            left = _read_left_out(self.skipped, unsaved)
        try:
            try:
                cache.save(self.cache_path, files, unsaved, left)
            except (CacheUnusable, sqlite3.DatabaseError) as exc:
                if cache_file.busy(exc):
                    raise  # another session is writing it: tried again at the next write
                cache.remove(self.cache_path, f"unusable ({exc})")
                with self._lock:
                    files = dict(self.files)
                    left = _read_left_out(self.skipped, self.skipped)
                cache.save(self.cache_path, files, [*files, *left], left)
        except (OSError, sqlite3.Error, CacheUnusable) as exc:
            log.warning("could not save the symbol map: %s", exc)
            with self._lock:
                self._unsaved |= unsaved  # tried again at the next write

    # -- reading ---------------------------------------------------------------------------

    def index(self) -> SymbolIndex:
        """The look-up tables for the map as it is now (rebuilt after a change; during the
        first build, of the files mapped so far, marked `partial`). One is built at a time:
        a second caller meanwhile (a request as the build ends, beside the build's own
        indexing) waits for it rather than building another beside it (at 10,000 files
        that was a second 50 MB and 2.4 s of CPU)."""
        with self._lock:
            if self._index is not None and self._index[0] == self.generation:
                return self._index[1]
        with self._indexing:
            return self._built_index()

    def _built_index(self) -> SymbolIndex:
        with self._lock:
            if self._index is not None and self._index[0] == self.generation:
                return self._index[1]  # built while this caller waited
            generation, files = self.generation, dict(self.files)
            progress, skipped = self.progress, _reasons(self.skipped)
        whole = progress is None and self.cache_path is not None
        ranks = stored_ranks.load(self.cache_path, files) if whole and self.cache_path else None
        with gc_paused(freeze=True):
            built = build_index(files, ranks)
        if whole and ranks is None and self.cache_path is not None:
            stored_ranks.save(self.cache_path, files, built.file_rank)
        built.partial = progress
        built.skipped = skipped
        with self._lock:
            self._index = (generation, built)
        return built


def _reasons(skipped: dict[str, LeftOut]) -> dict[str, str]:
    return {rel: reason for rel, (reason, _stamp) in skipped.items()}


def _read_left_out(skipped: dict[str, LeftOut], rels: Iterable[str]) -> dict[str, LeftOut]:
    """Of `rels`, the files left out for what reading them showed (what the cache keeps; a
    path rule, checked anew at every start, is not kept: a changed rule applies at once)."""
    return {rel: skipped[rel] for rel in rels if rel in skipped
            and skipped[rel][0] in cache.READ_REASONS and generated.by_path(rel) is None}


def partial_map_note(mapped: int, total: int) -> str:
    """What a retrieval from a map still being built says about it."""
    return f"the symbol map is still being built: it covers {mapped:,} of {total:,} files"
