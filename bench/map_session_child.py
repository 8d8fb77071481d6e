"""The symbol map as a session runs it, in a fresh process: `python -m bench.map_session_child
MODE ROOT CACHE` prints one JSON object.

- `session`: the session's map (`RepositoryMap`) built from CACHE (empty: a cold build;
  full: a restart) until its index is ready, while the event loop ticks every 10 ms. Reports
  this process's CPU and peak memory apart from its child processes' CPU (a build may run
  in one), so a build's cost is counted whole wherever it runs.
- `watch` / `watch-off`: from a full CACHE, the watcher following 30 changes of files a
  session has in context, with the map on (`watch`) or off (`watch-off`, the baseline):
  seconds from each write to the file's item updated (its budget event), and, with the map,
  to the change being searchable in the map (a name only the new content defines).
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from swetui.agent.repository_map import RepositoryMap
from swetui.agent.sandbox.secret_files import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.events import BudgetChanged
from swetui.engine.items import ContextItem, ItemKind, Layer, Source
from swetui.engine.watcher import WorkspaceWatcher

TICK = 0.010
CHANGES = 30
FILES = 10
TIMEOUT = 10.0
WATCHED = "watched"
"""The folder of the files the `watch` modes change (made by the parent, mapped)."""


def status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    return 0


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


async def _ticking(done: asyncio.Event) -> list[float]:
    late: list[float] = []
    while not done.is_set():
        before = time.perf_counter()
        await asyncio.sleep(TICK)
        late.append(time.perf_counter() - before - TICK)
    return late


def _spawned(tasks: set[asyncio.Task[Any]]) -> Any:
    def spawn(coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    return spawn


async def session(root: Path, cache: Path) -> dict[str, Any]:
    engine = ContextEngine()
    repo = RepositoryMap(root, engine, cache_path=cache, exclude=secret_files(root))
    done = asyncio.Event()
    ticks = asyncio.create_task(_ticking(done))
    tasks: set[asyncio.Task[Any]] = set()
    started = time.perf_counter()
    repo.build(_spawned(tasks))
    index = await repo.index(3600.0)
    ready = time.perf_counter() - started
    done.set()
    late = sorted(await ticks)
    return {"ready": ready, "files": len(index.by_file) if index else 0,
            "rss_kb": status_kb("VmRSS"), "late_p99": late[int(0.99 * (len(late) - 1))]}


async def watch(root: Path, cache: Path, with_map: bool) -> dict[str, Any]:
    engine = ContextEngine()
    for n in range(FILES):
        rel = f"{WATCHED}/mod{n}.py"
        engine.add(ContextItem(id=f"f{n}", kind=ItemKind.FILE, layer=Layer.TASK, title=rel,
                               content=(root / rel).read_text(), source=Source(path=rel)))
    tasks: set[asyncio.Task[Any]] = set()
    spawn = _spawned(tasks)
    repo = RepositoryMap(root, engine, cache_path=cache, exclude=secret_files(root),
                         enabled=with_map)
    repo.build(spawn)
    await repo.index(3600.0)
    seen: dict[str, float] = {}

    def on_budget(_event: Any) -> None:
        for n in range(FILES):
            marker = engine.get(f"f{n}").content.rsplit("#", 1)[-1].strip()
            if marker.isdigit() and marker not in seen:
                seen[marker] = time.perf_counter()

    engine.bus.subscribe(on_budget, BudgetChanged)
    watcher = WorkspaceWatcher(root, engine, secrets=secret_files(root),
                               on_change=lambda rels: spawn(repo.changed(rels)))
    running = asyncio.create_task(watcher.run())
    await asyncio.sleep(1.0)
    item: list[float] = []
    searchable: list[float] = []
    for n in range(CHANGES):
        path = root / WATCHED / f"mod{n % FILES}.py"
        started = time.perf_counter()
        path.write_text(f"def changed_{n}():\n    return {n}\n# {n}\n")
        found = None
        while time.perf_counter() - started < TIMEOUT:
            known = repo.map._index  # what a look-up would search now, without indexing
            if found is None and with_map and known is not None and \
                    f"changed_{n}" in known[1].by_name:
                found = time.perf_counter()
            if str(n) in seen and (found is not None or not with_map):
                break
            await asyncio.sleep(0.002)
        item.append(seen.get(str(n), time.perf_counter()) - started)
        if with_map:
            searchable.append((found or time.perf_counter()) - started)
        await asyncio.sleep(0.1)
    watcher.stop()
    await asyncio.wait_for(running, 5)
    return {"item": item, "searchable": searchable}


def main(mode: str, root: Path, cache: Path) -> dict[str, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    if mode == "session":
        found = asyncio.run(session(root, cache))
    elif mode in ("watch", "watch-off"):
        found = asyncio.run(watch(root, cache, mode == "watch"))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    return {**found, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
            "children_cpu": children_cpu(), "peak_kb": status_kb("VmHWM")}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))))
