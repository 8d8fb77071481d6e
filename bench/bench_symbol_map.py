"""The symbol map at 1,000 and 10,000 files: building it cold (every file parsed), warm (the
disk cache, nothing changed: a restart), and updating it after one file changed (what the
watcher asks for). Built in a worker thread, so the first frame never waits for it; an update
should land within the watcher's own latency (its 50 ms debounce).

Baseline from the same run: reading every file once, one after another (build), and reading
the one changed file (update). Medians of a few runs after one warm-up (OS cache filled).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_retrieval import make_workspace
from bench.common import entry
from swetui.engine.symbols.symbol_map import SymbolMap

RUNS = 3
SIZES = ((10, 100), (100, 100))
"""(folders, files per folder): 1,000 and 10,000 files."""
UPDATE_TARGET = 0.050


def _timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _read_all(root: Path) -> None:
    for path in sorted(root.rglob("*.py")):
        path.read_bytes()


def measure(root: Path, cache: Path, runs: int) -> dict[str, float]:
    _read_all(root)
    cold = statistics.median(_timed(lambda: SymbolMap(root).build()) for _ in range(runs))
    SymbolMap(root, cache_path=cache).build()
    warm = statistics.median(_timed(lambda: SymbolMap(root, cache_path=cache).build())
                             for _ in range(runs))
    symbols = SymbolMap(root)
    symbols.build()
    target = root / "pkg7" / "mod3.py"
    updates: list[float] = []
    reindex: list[float] = []
    for n in range(runs * 3):
        target.write_text(f"def changed_{n}():\n    return {n}\n")
        updates.append(_timed(lambda: symbols.update(["pkg7/mod3.py"])))
        started = time.perf_counter()
        found = f"changed_{n}" in symbols.index().by_name
        reindex.append(time.perf_counter() - started + updates[-1])
        if not found:
            raise AssertionError("the update did not reach the map")
    read_one = statistics.median(_timed(target.read_bytes) for _ in range(runs * 3))
    read_all = statistics.median(_timed(lambda: _read_all(root)) for _ in range(runs))
    return {"cold": cold, "warm": warm, "update": statistics.median(updates),
            "searchable": statistics.median(reindex),
            "read_all": read_all, "read_one": read_one}


def run(runs: int = RUNS) -> list[dict[str, Any]]:
    """Entries for `python -m bench`."""
    entries = []
    for folders, per_folder in SIZES:
        files = folders * per_folder
        with tempfile.TemporaryDirectory(prefix="swetui-symbols-") as temp:
            root = Path(temp) / "ws"
            make_workspace(root, folders, per_folder)
            got = measure(root, Path(temp) / "cache" / "map.json", runs)
        entries += [
            entry(f"symbol map build, {files:,} files", got["cold"], "s",
                  baseline=got["read_all"], ratio=got["cold"] / got["read_all"],
                  target="in a worker thread (first frame not delayed)", passed=True),
            entry(f"symbol map restart, {files:,} files", got["warm"], "s",
                  baseline=got["read_all"], ratio=got["warm"] / got["read_all"],
                  target="< the cold build", passed=got["warm"] < got["cold"]),
            entry(f"symbol map update, {files:,} files", got["update"], "s",
                  baseline=got["read_one"], ratio=got["update"] / got["read_one"],
                  target=f"<= {UPDATE_TARGET * 1000:.0f} ms (watcher debounce)",
                  passed=got["update"] <= UPDATE_TARGET),
            entry(f"symbol map update+reindex, {files:,}", got["searchable"], "s",
                  baseline=got["read_all"], ratio=got["searchable"] / got["read_all"],
                  target="< reading every file", passed=got["searchable"] < got["read_all"])]
    return entries


if __name__ == "__main__":
    for line in run():
        print(line)
