"""The look-up tables of one generation of the symbol map: definitions by name and by file,
how many definitions say each stem, how often each name is referenced, the files' ranks;
built in bulk (`build_index`) or patched for a few changed files (`patched`)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from swetui.engine.symbols.cache import Stamp
from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.engine.symbols.file_rank import rank_files


@dataclass
class SymbolIndex:
    """Look-up tables of one generation of the map."""

    by_name: dict[str, list[tuple[str, Definition]]] = field(default_factory=dict)
    by_file: dict[str, FileSymbols] = field(default_factory=dict)
    document_frequency: dict[str, int] = field(default_factory=dict)
    definitions: int = 0
    partial: tuple[int, int] | None = None
    """(files mapped, files to map) when built from a map still being built."""
    file_rank: dict[str, float] = field(default_factory=dict)
    referenced: dict[str, int] = field(default_factory=dict)
    """How often each name is referenced across the workspace."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Files left out of the map and why (`generated`: generated, minified, vendored, too
    large)."""

    def idf(self, stem: str) -> float:
        return math.log((self.definitions + 1) / (self.document_frequency.get(stem, 0) + 1))


def build_index(files: dict[str, tuple[FileSymbols, Stamp]],
                ranks: dict[str, float] | None = None) -> SymbolIndex:
    """The look-up tables of `files`, counted in bulk (`patched` keeps them current); the
    files ranked unless their `ranks` are given (`stored_ranks`)."""
    index = SymbolIndex()
    by_name, by_file, referenced = index.by_name, index.by_file, index.referenced
    frequency: Counter[str] = Counter()
    for rel, (symbols, _stamp) in files.items():
        by_file[rel] = symbols
        said: list[str] = []  # each definition's stems once, counted per file in one call
        for definition in symbols.definitions:
            entries = by_name.get(definition.name)
            if entries is None:
                by_name[definition.name] = [(rel, definition)]
            else:
                entries.append((rel, definition))
            said.extend(frozenset(definition.doc).union(definition.body))
        frequency.update(said)
        index.definitions += len(symbols.definitions)
        for name, count in symbols.references.items():
            referenced[name] = referenced.get(name, 0) + count
    index.document_frequency = dict(frequency)
    index.file_rank = rank_files(index.by_file, index.by_name) if ranks is None else ranks
    return index


def patched(index: SymbolIndex,
            changes: list[tuple[str, FileSymbols | None, FileSymbols | None]]) -> SymbolIndex:
    """A new index: `index` with each changed file's old symbols taken out and its new ones
    put in. The tables are copied, never changed in place, so a look-up running on the old
    index is not disturbed. File ranks are kept (a new file ranks last) until the next full
    index: one file moves a repository's ranking little."""
    new = SymbolIndex(by_name=index.by_name.copy(), by_file=index.by_file.copy(),
                      document_frequency=index.document_frequency.copy(),
                      definitions=index.definitions, file_rank=index.file_rank.copy(),
                      referenced=index.referenced.copy())
    # .copy(), not dict(…): once a patch has removed a key, dict(…) copies entry by entry
    # (80-190 ms for the 10,000-file map's names and stems), .copy() clones the table
    for rel, old, symbols in changes:
        if old is not None:
            new.by_file.pop(rel, None)
            for definition in old.definitions:
                kept = [entry for entry in new.by_name.get(definition.name, ())
                        if entry[0] != rel]
                if kept:
                    new.by_name[definition.name] = kept
                else:
                    new.by_name.pop(definition.name, None)
                new.definitions -= 1
                for stem in definition.doc | definition.body:
                    _count(new.document_frequency, stem, -1)
            for name, count in old.references.items():
                _count(new.referenced, name, -count)
        if symbols is not None:
            new.by_file[rel] = symbols
            _add_file(new, rel, symbols, shared=True)
            new.file_rank.setdefault(rel, min(new.file_rank.values(), default=0.0))
        else:
            new.file_rank.pop(rel, None)
    return new


def _count(table: dict[str, int], key: str, by: int) -> None:
    value = table.get(key, 0) + by
    if value > 0:
        table[key] = value
    else:
        table.pop(key, None)


def _add_file(index: SymbolIndex, rel: str, symbols: FileSymbols, *, shared: bool) -> None:
    """Add one file's symbols; with `shared`, the name lists are replaced, not appended to
    (an older index holds them)."""
    for definition in symbols.definitions:
        entries = index.by_name.get(definition.name)
        if entries is None:
            index.by_name[definition.name] = [(rel, definition)]
        elif shared:
            index.by_name[definition.name] = [*entries, (rel, definition)]
        else:
            entries.append((rel, definition))
        index.definitions += 1
        for stem in definition.doc | definition.body:
            _count(index.document_frequency, stem, 1)
    for name, count in symbols.references.items():
        _count(index.referenced, name, count)
