"""One measurement of the symbol map in a fresh process, so its peak memory (VmHWM) is its
own: `python -m bench.symbol_map_child MODE ROOT CACHE` prints one JSON object.

- `parse`: the baseline: read every file the map covers and parse it with tree-sitter,
  nothing else (what any map built on the parser pays).
- `build`: the map as a session builds it: in a worker thread (with the cache at CACHE,
  empty for a cold build, full for a restart) then indexed (the map and its index still
  held when the resident memory is read), while the event loop ticks
  every 10 ms; reports how late the ticks ran (what a screen drawing meanwhile would feel),
  and the same lateness with nothing running, as its baseline.
- `update`: from the cache, one file changed again and again: seconds until the change is
  searchable, against indexing the whole map again.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from swetui.engine.symbols.languages import language_of, parser_for
from swetui.engine.symbols.symbol_map import SymbolMap, build_index
from swetui.engine.workspace_tree import walk

TICK = 0.010


def status_kb(field: str = "VmHWM") -> int:
    """A figure of /proc/self/status in kB: VmHWM (peak resident) or VmRSS (resident now)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    return 0


def parse_only(root: Path) -> dict[str, Any]:
    rels, _cut = walk(root)
    files = 0
    for rel in rels:
        language = language_of(rel)
        if language is not None:
            parser_for(language).parse((root / rel).read_bytes())
            files += 1
    return {"files": files}


async def _ticking(seconds: float | None, done: asyncio.Event) -> list[float]:
    """How late each 10 ms tick ran, until `done` (or for `seconds`)."""
    late: list[float] = []
    started = time.perf_counter()
    while not done.is_set() and (seconds is None or time.perf_counter() - started < seconds):
        before = time.perf_counter()
        await asyncio.sleep(TICK)
        late.append(time.perf_counter() - before - TICK)
    return late


async def _build(root: Path, cache: Path) -> dict[str, Any]:
    idle = await _ticking(1.0, asyncio.Event())
    symbols = SymbolMap(root, cache_path=cache)
    done = asyncio.Event()
    ticks = asyncio.create_task(_ticking(None, done))
    started = time.perf_counter()
    await asyncio.to_thread(symbols.build)
    built = time.perf_counter() - started
    await asyncio.to_thread(symbols.index)
    ready = time.perf_counter() - started
    done.set()
    late = await ticks
    return {"build": built, "ready": ready, "files": len(symbols.files),
            "rss_kb": status_kb("VmRSS"),
            "late_p99": sorted(late)[int(0.99 * (len(late) - 1))], "late_max": max(late),
            "idle_p99": sorted(idle)[int(0.99 * (len(idle) - 1))], "idle_max": max(idle)}


def update(root: Path, cache: Path, rel: str, runs: int = 9) -> dict[str, Any]:
    symbols = SymbolMap(root, cache_path=cache)
    symbols.build()
    symbols.index()
    target = root / rel
    searchable: list[float] = []
    for n in range(runs):
        target.write_text(f"def changed_{n}():\n    return {n}\n")
        started = time.perf_counter()
        symbols.update([rel])
        found = f"changed_{n}" in symbols.index().by_name
        searchable.append(time.perf_counter() - started)
        if not found:
            raise AssertionError("the update did not reach the map")
    files = dict(symbols.files)
    reindex = statistics.median(_timed(lambda: build_index(files)) for _ in range(3))
    return {"searchable": statistics.median(searchable), "reindex": reindex}


def _timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main(mode: str, root: Path, cache: Path) -> dict[str, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    if mode == "parse":
        found = parse_only(root)
    elif mode == "build":
        found = asyncio.run(_build(root, cache))
    elif mode == "update":
        found = update(root, cache, "pkg7/mod3.py")
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    return {"rss_kb": status_kb("VmRSS"), **found, "wall": time.perf_counter() - wall,
            "cpu": time.process_time() - cpu, "peak_kb": status_kb("VmHWM")}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))))
