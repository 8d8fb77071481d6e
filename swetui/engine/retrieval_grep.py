"""Grep and listings for retrieval: hits of the request's terms, source before tests before
documentation, read by a few threads within a time limit; and a tree of the workspace."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from swetui.engine.symbols.languages import language_of
from swetui.engine.symbols.lookup import file_weight
from swetui.files import Refuse, looks_binary, read_regular

MAX_GREP_FILE_BYTES = 1_000_000
SCAN_SECONDS = 1.5
"""Grep stops after this long and says so: a request must not wait on a huge tree."""
GREP_THREADS = 8
GREP_CHUNK = 256
LISTING_LINES = 200


def grep(root: Path, files: list[str], terms: list[str], max_hits: int = 10,
         time_limit: float = SCAN_SECONDS, refuse: Refuse | None = None,
         ) -> tuple[list[str], int, int, bool]:
    """`path:line: text` hits for any of `terms` (case-insensitive), lines matching more
    terms first; returns (hits, files searched, files skipped as too large, binary or
    unreadable, timed out). Files are read by a few threads
    (reads release the GIL), in order, so the result does not depend on timing."""
    needles = [term.lower().encode() for term in terms]
    exact = [term.encode() for term in terms]
    deadline = time.perf_counter() + time_limit
    chunks = [files[start:start + GREP_CHUNK] for start in range(0, len(files), GREP_CHUNK)]

    def scan(chunk: list[str]) -> tuple[list[tuple[float, str]], int, int, bool]:
        found: list[tuple[float, str]] = []
        searched = skipped = 0
        for rel in chunk:
            if time.perf_counter() > deadline:
                return found, searched, skipped, True
            try:  # the walk lists regular files only; one swapped for a FIFO is refused
                data, _size = read_regular(root / rel, MAX_GREP_FILE_BYTES + 1,
                                           follow_symlinks=False, refuse=refuse)
            except OSError:
                skipped += 1
                continue
            if len(data) > MAX_GREP_FILE_BYTES or looks_binary(data):
                skipped += 1
                continue
            searched += 1
            lower = data.lower()
            if not any(needle in lower for needle in needles):
                continue
            weight = grep_weight(rel)
            # numbered as read_file numbers them: at line feeds only (bytes.splitlines
            # also splits at a lone carriage return)
            for number, line in enumerate(data.split(b"\n"), 1):
                low = line.lower()
                score = sum(2 if e in line else 1 for e, n in zip(exact, needles, strict=True)
                            if n in low)
                if score:
                    shown = line.decode("utf-8", "replace").strip()[:200]
                    found.append((-score * weight, f"{rel}:{number}: {shown}"))
        return found, searched, skipped, False

    scored: list[tuple[float, int, str]] = []
    scanned = passed = 0
    timed_out = False
    with ThreadPoolExecutor(max_workers=GREP_THREADS) as pool:
        for found, count, left, stopped in pool.map(scan, chunks):
            scored.extend((score, len(scored), hit) for score, hit in found)
            scanned += count
            passed += left
            timed_out |= stopped
    return _top(scored, max_hits), scanned, passed, timed_out


def grep_weight(rel: str) -> float:
    """Source above tests above documentation and changelogs."""
    weight = file_weight(rel)
    return weight if language_of(rel) is not None else weight * 0.25


def _top(scored: list[tuple[float, int, str]], limit: int) -> list[str]:
    return [hit for _score, _order, hit in sorted(scored)[:limit]]


def listing(files: list[str], base: str = "", lines: int = LISTING_LINES) -> str:
    """A tree of `files` under `base`: directories with their file counts, then files."""
    prefix = f"{base.rstrip('/')}/" if base else ""
    under = [rel[len(prefix):] for rel in files if rel.startswith(prefix)]
    dirs: dict[str, int] = {}
    top: list[str] = []
    for rel in under:
        head, _, rest = rel.partition("/")
        if rest:
            dirs[head] = dirs.get(head, 0) + 1
        else:
            top.append(head)
    out = [f"{base or '.'}: {len(under):,} files"]
    out += [f"  {name}/ ({count} files)" for name, count in sorted(dirs.items())]
    out += [f"  {name}" for name in top]
    if len(out) > lines:
        out = out[:lines] + [f"  … {len(out) - lines} more"]
    return "\n".join(out)
