"""The workspace's symbol map: built once in the background (from the disk cache where files
are unchanged), updated file by file from the watcher, and indexed for look-ups and for the
ranked outline."""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from swetui.engine.symbols import cache
from swetui.engine.symbols.cache import Stamp
from swetui.engine.symbols.extract import Definition, FileSymbols, extract
from swetui.engine.symbols.languages import language_of
from swetui.engine.workspace_tree import IGNORED_DIRS, MAX_SCAN_FILES, walk
from swetui.files import looks_binary, read_regular

log = logging.getLogger(__name__)

MAX_PARSE_BYTES = 1_000_000
"""Larger files (generated code, bundles) are left out of the map."""


@dataclass
class SymbolIndex:
    """Look-up tables of one generation of the map."""

    by_name: dict[str, list[tuple[str, Definition]]] = field(default_factory=dict)
    by_file: dict[str, FileSymbols] = field(default_factory=dict)
    document_frequency: dict[str, int] = field(default_factory=dict)
    definitions: int = 0
    file_rank: dict[str, float] = field(default_factory=dict)
    referenced: dict[str, int] = field(default_factory=dict)
    """How often each name is referenced across the workspace."""

    def idf(self, stem: str) -> float:
        return math.log((self.definitions + 1) / (self.document_frequency.get(stem, 0) + 1))


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
                 ignore: frozenset[str] = IGNORED_DIRS, max_files: int = MAX_SCAN_FILES) -> None:
        self.root = Path(os.path.realpath(root))
        self.cache_path = cache_path
        self.exclude = exclude
        self.ignore = ignore
        self.max_files = max_files
        self.files: dict[str, tuple[FileSymbols, Stamp]] = {}
        self.ready = threading.Event()
        self.notes: list[str] = []
        self.build_seconds = 0.0
        self.generation = 0
        self._lock = threading.Lock()
        self._index: tuple[int, SymbolIndex] | None = None

    # -- building --------------------------------------------------------------------------

    def build(self) -> None:
        """Parse every file (reusing the cache for unchanged ones); blocking: run it in a
        thread. `ready` is set when done, also after a failure (the map is then empty)."""
        started = time.perf_counter()
        try:
            stored = cache.load(self.cache_path) if self.cache_path is not None else {}
            rels, cut = walk(self.root, self.ignore, self.max_files)
            if cut:
                self.notes.append(f"the symbol map covers the first {self.max_files:,} files")
            files: dict[str, tuple[FileSymbols, Stamp]] = {}
            for rel in rels:
                parsed = self._parse(rel, stored.get(rel))
                if parsed is not None:
                    files[rel] = parsed
            with self._lock:
                self.files = files
                self.generation += 1
            self._save()
        except Exception:  # a broken map must never break a session: retrieval greps instead
            log.exception("building the symbol map failed")
            self.notes.append("the symbol map could not be built")
        finally:
            self.build_seconds = time.perf_counter() - started
            self.ready.set()

    def update(self, rels: Iterable[str]) -> list[str]:
        """Re-read changed, new or deleted files (workspace-relative); returns the paths
        whose entry changed."""
        changed: list[str] = []
        for rel in rels:
            if any(part in self.ignore for part in rel.split("/")[:-1]):
                continue
            old = self.files.get(rel)
            parsed = self._parse(rel, old)
            if parsed is old:
                continue
            with self._lock:
                if parsed is None:
                    self.files.pop(rel, None)
                else:
                    self.files[rel] = parsed
                self.generation += 1
            changed.append(rel)
        if changed:
            self._save()
        return changed

    def _parse(self, rel: str, known: tuple[FileSymbols, Stamp] | None,
               ) -> tuple[FileSymbols, Stamp] | None:
        language = language_of(rel)
        if language is None or (self.exclude is not None and self.exclude(rel)):
            return None
        path = self.root / rel
        stamp = _stamp(path)
        if stamp is None or stamp[0] > MAX_PARSE_BYTES:
            return None
        if known is not None and known[1] == stamp:
            return known
        try:
            data, _size = read_regular(path, MAX_PARSE_BYTES, follow_symlinks=False)
        except OSError:
            return None
        if looks_binary(data):
            return None
        try:
            return extract(rel, data, language), stamp
        except Exception:  # a grammar that fails on one odd file leaves that file out
            log.exception("could not parse %s", rel)
            return None

    def _save(self) -> None:
        if self.cache_path is None:
            return
        try:
            cache.save(self.cache_path, dict(self.files))
        except OSError as exc:
            log.warning("could not save the symbol map: %s", exc)

    # -- reading ---------------------------------------------------------------------------

    def index(self) -> SymbolIndex:
        """The look-up tables for the map as it is now (rebuilt after a change)."""
        with self._lock:
            if self._index is not None and self._index[0] == self.generation:
                return self._index[1]
            generation, files = self.generation, dict(self.files)
        built = _build_index(files)
        with self._lock:
            self._index = (generation, built)
        return built


def _build_index(files: dict[str, tuple[FileSymbols, Stamp]]) -> SymbolIndex:
    index = SymbolIndex()
    for rel, (symbols, _stamp) in files.items():
        index.by_file[rel] = symbols
        for definition in symbols.definitions:
            index.by_name.setdefault(definition.name, []).append((rel, definition))
            index.definitions += 1
            for stem in definition.doc | definition.body:
                index.document_frequency[stem] = index.document_frequency.get(stem, 0) + 1
        for name, count in symbols.references.items():
            index.referenced[name] = index.referenced.get(name, 0) + count
    index.file_rank = _rank_files(index)
    return index


def _rank_files(index: SymbolIndex, rounds: int = 20, damping: float = 0.85) -> dict[str, float]:
    """PageRank over 'file A references a name file B defines' (weighted by how often, and
    split among the files defining that name), as a repository map ranks files."""
    files = list(index.by_file)
    if not files:
        return {}
    edges: dict[str, dict[str, float]] = {}
    for rel, symbols in index.by_file.items():
        out: dict[str, float] = {}
        for name, count in symbols.references.items():
            defined = index.by_name.get(name)
            if not defined or len(defined) > 20:
                continue  # `__init__`, `get`: names defined everywhere say nothing
            targets = {where for where, _ in defined if where != rel}
            for target in targets:
                out[target] = out.get(target, 0.0) + math.sqrt(count) / len(targets)
        edges[rel] = out
    rank = dict.fromkeys(files, 1.0 / len(files))
    for _ in range(rounds):
        new = dict.fromkeys(files, (1.0 - damping) / len(files))
        for rel, out in edges.items():
            total = sum(out.values())
            if not total:
                continue
            share = damping * rank[rel] / total
            for target, weight in out.items():
                new[target] += share * weight
        rank = new
    return rank
