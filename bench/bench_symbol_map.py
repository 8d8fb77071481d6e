"""The symbol map at 1,000, 3,000 and 10,000 files: building it cold (every file parsed),
warm (the disk cache, nothing changed: a restart), and following one changed file (what the
watcher asks for) until the change is searchable. Built in a worker thread, so the first
frame never waits for it; a change should be searchable within the watcher's own latency
(its 50 ms debounce).

Baselines from the same run: reading every file once, one after another (build, restart),
and indexing the whole map again (what a change cost before the index was patched per file).
Medians of a few runs after one warm-up (OS cache filled).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_retrieval import make_workspace
from bench.common import entry
from bench.retrieval_projects import project_root
from swetui.engine.symbols.symbol_map import SymbolMap, build_index

RUNS = 3
SIZES = ((10, 100), (30, 100), (100, 100))
"""(folders, files per folder): 1,000, 3,000 and 10,000 files."""
UPDATE_TARGET = 0.050
REAL_FILES = 10_000
"""The real-code workspace: httpx's and click's modules copied until it has this many."""


def _timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def make_real_workspace(root: Path, files: int) -> Path:
    """`files` Python files copied from httpx 0.28.1 and click 8.1.8 (the retrieval
    benchmark's projects), into pkg0/, pkg1/, …: real definitions, names and literals."""
    sources = [path for project in (("httpx==0.28.1", "httpx-0.28.1"),
                                    ("click==8.1.8", "click-8.1.8"))
               for path in sorted(project_root(*project).rglob("*.py"))]
    for number in range(files):
        folder = root / f"pkg{number // len(sources)}"
        folder.mkdir(parents=True, exist_ok=True)
        source = sources[number % len(sources)]
        (folder / f"m{number % len(sources)}_{source.name}").write_bytes(source.read_bytes())
    (root / "pkg7").mkdir(exist_ok=True)
    (root / "pkg7" / "mod3.py").write_text("def needle_function():\n    return 1\n")
    return root


def _read_all(root: Path) -> None:
    for path in sorted(root.rglob("*.py")):
        path.read_bytes()


def measure(root: Path, cache: Path, runs: int) -> dict[str, float]:
    _read_all(root)
    cold = statistics.median(_timed(lambda: SymbolMap(root).build()) for _ in range(runs))
    SymbolMap(root, cache_path=cache).build()
    warm = statistics.median(_timed(lambda: SymbolMap(root, cache_path=cache).build())
                             for _ in range(runs))
    symbols = SymbolMap(root, cache_path=cache)
    symbols.build()
    symbols.index()
    target = root / "pkg7" / "mod3.py"
    searchable: list[float] = []
    for n in range(max(runs, 3) * 3):
        target.write_text(f"def changed_{n}():\n    return {n}\n")
        started = time.perf_counter()
        symbols.update(["pkg7/mod3.py"])
        found = f"changed_{n}" in symbols.index().by_name
        searchable.append(time.perf_counter() - started)
        if not found:
            raise AssertionError("the update did not reach the map")
    files = dict(symbols.files)
    reindex = statistics.median(_timed(lambda: build_index(files)) for _ in range(runs))
    save = statistics.median(_timed(symbols.save) for _ in range(runs))
    read_all = statistics.median(_timed(lambda: _read_all(root)) for _ in range(runs))
    return {"cold": cold, "warm": warm, "searchable": statistics.median(searchable),
            "reindex": reindex, "save": save, "read_all": read_all}


def run(runs: int = RUNS) -> list[dict[str, Any]]:
    """Entries for `python -m bench`."""
    entries = []
    cases = [(f"{folders * per_folder:,} files", runs,
              lambda root, f=folders, p=per_folder: make_workspace(root, f, p))
             for folders, per_folder in SIZES]
    cases.append((f"{REAL_FILES:,} files of real code", 1,
                  lambda root: make_real_workspace(root, REAL_FILES)))
    for files, repeat, make in cases:
        with tempfile.TemporaryDirectory(prefix="swetui-symbols-") as temp:
            root = Path(temp) / "ws"
            make(root)
            got = measure(root, Path(temp) / "cache" / "map.json", repeat)
        entries += [
            entry(f"symbol map build, {files}", got["cold"], "s",
                  baseline=got["read_all"], ratio=got["cold"] / got["read_all"],
                  target="in a worker thread (first frame not delayed)", passed=True),
            entry(f"symbol map restart, {files}", got["warm"], "s",
                  baseline=got["read_all"], ratio=got["warm"] / got["read_all"],
                  target="< the cold build", passed=got["warm"] < got["cold"]),
            entry(f"symbol map change searchable, {files}", got["searchable"], "s",
                  baseline=got["reindex"], ratio=got["searchable"] / got["reindex"],
                  target=f"<= {UPDATE_TARGET * 1000:.0f} ms (watcher debounce)",
                  passed=got["searchable"] <= UPDATE_TARGET),
            entry(f"symbol map cache write, {files}", got["save"], "s",
                  baseline=got["read_all"], ratio=got["save"] / got["read_all"],
                  target="off the look-up path (2 s after a burst)", passed=True)]
    return entries


if __name__ == "__main__":
    for line in run():
        print(line)
