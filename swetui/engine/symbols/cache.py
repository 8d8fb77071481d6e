"""The symbol map on disk (`.swetui/symbols/map.json`): each file's symbols with the size and
modification time they were read at, so a restart re-parses only what changed. Known secret
values in string literals (a key pasted into a source file) are redacted before writing."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.paths import write_private
from swetui.secrets import redact

log = logging.getLogger(__name__)

FORMAT = 3
"""Bumped when what is stored changes; an older file is ignored and rebuilt."""

Stamp = tuple[int, int]
"""(size, mtime_ns) of a file when it was parsed."""


def _definition(d: Definition) -> list[Any]:
    return [d.name, d.qualname, d.kind, d.start, d.end, sorted(d.doc), sorted(d.body),
            sorted(d.refs), d.bases]


def _file(symbols: FileSymbols, stamp: Stamp) -> dict[str, Any]:
    return {"stamp": list(stamp), "language": symbols.language, "lines": symbols.lines,
            "definitions": [_definition(d) for d in symbols.definitions],
            "references": symbols.references,
            "literals": [[line, [redact(part) for part in parts]]
                         for line, parts in symbols.literals]}


def save(path: Path, files: dict[str, tuple[FileSymbols, Stamp]]) -> None:
    """Write the map atomically (0600, in swetui's private folder)."""
    data = {"format": FORMAT,
            "files": {rel: _file(symbols, stamp) for rel, (symbols, stamp) in files.items()}}
    write_private(path, json.dumps(data, separators=(",", ":")).encode("utf-8"),
                  durable=False)


def remove_leftovers(path: Path) -> None:
    """Remove the temp files of writes a kill interrupted (`.map.json.<random>.tmp`): the
    map is written whole through one, and each kill during a write would leave one more."""
    try:
        leftovers = list(path.parent.glob(f".{path.name}.*.tmp"))
    except OSError:
        return
    for leftover in leftovers:
        try:
            leftover.unlink()
        except OSError as exc:
            log.warning("could not remove %s: %s", leftover, exc)


def load(path: Path) -> dict[str, tuple[FileSymbols, Stamp]]:
    """The stored map, or nothing when it is missing, of another format or unreadable."""
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("symbol map cache %s unreadable (%s); rebuilding", path, exc)
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    files: dict[str, tuple[FileSymbols, Stamp]] = {}
    try:
        for rel, entry in data["files"].items():
            symbols = FileSymbols(
                path=rel, language=entry["language"], lines=entry["lines"],
                definitions=[Definition(name=n, qualname=q, kind=k, start=s, end=e,
                                        doc=set(doc), body=set(body), refs=set(refs),
                                        bases=list(bases))
                             for n, q, k, s, e, doc, body, refs, bases
                             in entry["definitions"]],
                references=dict(entry["references"]),
                literals=[(line, list(parts)) for line, parts in entry["literals"]])
            size, mtime = entry["stamp"]
            files[rel] = (symbols, (int(size), int(mtime)))
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("symbol map cache %s malformed (%s); rebuilding", path, exc)
        return {}
    return files
