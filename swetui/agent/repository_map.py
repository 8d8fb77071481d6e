"""The session's symbol map: built in a worker thread once the session starts (the first
frame never waits for it), cached under `.swetui/symbols/`, kept current from the file
watcher, searched by each turn's retrieval, and shown in the inspector as the ranked
repository outline, an item the user pins to send it."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

from swetui.agent.map_child import STALL, ChildFailed, build_in_child
from swetui.engine.context import ContextEngine, UnknownItem
from swetui.engine.events import EngineNotice
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin, Source
from swetui.engine.symbols import cache
from swetui.engine.symbols.cache import FILE_NAME
from swetui.engine.symbols.outline import outline
from swetui.engine.symbols.semantic import VECTORS_FILE, keep_vectors
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap

log = logging.getLogger(__name__)

ITEM_ID = "repo-map"
TITLE = "Repository map (ranked outline; pin it to send it)"
MAP_CACHE = FILE_NAME
"""The cache's name in `.swetui/symbols/`."""
RUN_WAIT = 120.0
"""Seconds `swetui run`'s request waits for the first build (the screen's waits a few): a
headless run has no screen to keep live, and a map still building when it ends is lost."""
CHILD_FILES = 2_000
"""A build with at least this many files to parse runs in a child process (`map_child`);
fewer (a restart with a few changed files) are parsed in a worker thread."""
SAVE_DELAY = 2.0
"""Seconds between a change and writing the cache: a burst of changes makes one write (of
the changed files' rows alone). A kill before it costs nothing: the next start re-reads the
files whose size or time differ from the cache's."""


class RepositoryMap:
    """One workspace's symbol map for a session; `enabled=False` builds nothing."""

    def __init__(self, root: Path, engine: ContextEngine, *, cache_path: Path | None,
                 exclude: Callable[[str], bool] | None, enabled: bool = True) -> None:
        self.engine = engine
        self.enabled = enabled
        self.map = SymbolMap(root, cache_path=cache_path, exclude=exclude)
        if cache_path is not None:  # what retrieval embeds is kept beside the map
            keep_vectors(root, cache_path.with_name(VECTORS_FILE))
        self.requested = False
        """Whether the build was asked for (a turn waits for the map only then)."""
        self.pending: set[str] = set()
        """Paths the watcher reported while the build ran, applied when it ends."""
        self.first_wait: float | None = None
        """How long in all a request waits for the first build when longer than the turn
        asks (`swetui run`: RUN_WAIT); past the turn's wait it says so."""
        self._spawn: Callable[[Coroutine[Any, Any, Any]], object] | None = None
        self._save_due = False
        self.child_files = CHILD_FILES
        self.child_stall = STALL
        """Seconds the build's child process may go without progress before it is stopped."""
        self.in_child: tuple[int, int] | None = None
        """(files parsed, files to parse) while a child process builds the map."""

    def build(self, spawn: Callable[[Coroutine[Any, Any, Any]], object]) -> None:
        """Start building the map in the background with `spawn`."""
        if self.enabled and not self.requested:
            self.requested = True
            self._spawn = spawn
            spawn(self._build())

    async def _build(self) -> None:
        """Build the map (from the cache where files are unchanged), apply what changed
        meanwhile, and show the outline."""
        in_context = {item.source.path for item in self.engine if item.source.path}
        try:
            if self.map.cache_path is not None and \
                    await asyncio.to_thread(self._worth_a_child):
                await self._build_in_child(self.map.cache_path, in_context)
        except Exception:  # the build below must run whatever happened: requests wait on it
            log.warning("the symbol map's build process could not be used", exc_info=True)
        await asyncio.to_thread(self.map.build, in_context)
        await asyncio.to_thread(self.map.index)
        if self.pending:
            pending, self.pending = sorted(self.pending), set()
            await self.changed(pending)
        await self._show()

    def _worth_a_child(self) -> bool:
        """Whether at least `child_files` files are to be parsed and the cache, where a
        child's work comes back, can be written (else the build parses here)."""
        assert self.map.cache_path is not None
        try:
            cache.create(self.map.cache_path)
        except (OSError, sqlite3.Error) as exc:
            log.info("the symbol map is built in this process: its cache cannot be kept (%s)",
                     exc)
            return False
        return self.map.unread() >= self.child_files

    async def _build_in_child(self, cache_path: Path, in_context: set[str]) -> None:
        """Parse in a child process, which writes the cache the build then loads; if it
        fails, say so: the build goes on here, from what the child wrote."""
        self.in_child = (0, 0)

        def progress(mapped: int, total: int) -> None:
            self.in_child = (mapped, total)

        try:
            await build_in_child(self.map.root, cache_path, in_context, progress,
                                 self.child_stall)
        except Exception as exc:  # whatever happened, the build goes on here
            if not isinstance(exc, ChildFailed):
                log.warning("the symbol map's build process failed", exc_info=True)
            self.engine.bus.publish(EngineNotice(
                message=f"the symbol map's build process {_failure(exc)}; building it in "
                        "this process instead (the files it mapped are kept)", level="warning"))
        finally:
            self.in_child = None

    async def changed(self, rels: Iterable[str]) -> None:
        """The watcher saw these workspace-relative paths change: the map is searchable
        with them as soon as they are parsed; the outline follows, the cache a little
        later (one write for a burst of changes)."""
        if not self.enabled or not self.requested:
            return
        if not self.map.ready.is_set():
            self.pending.update(rels)  # the build may have read them before they changed
            return
        if await asyncio.to_thread(self.map.update, list(rels)):
            self._save_soon()
            await self._show()

    def _save_soon(self) -> None:
        if not self._save_due and self._spawn is not None:
            self._save_due = True
            self._spawn(self._save_later())

    async def _save_later(self) -> None:
        await asyncio.sleep(SAVE_DELAY)
        self._save_due = False
        await asyncio.to_thread(self.map.save)

    async def index(self, wait: float) -> SymbolIndex | None:
        """The map's look-up tables, waiting up to `wait` seconds (or `first_wait`, saying
        so past `wait`) for the first build to end; if it has not, those of the files
        mapped so far (`partial` says how many of how many). None when it is off or holds
        no file yet."""
        if not self.enabled or not self.requested:
            return None
        if not self.map.ready.is_set():
            await asyncio.to_thread(self.map.ready.wait, wait)
            more = (self.first_wait or 0.0) - wait
            if more > 0 and not self.map.ready.is_set():
                self._say_waiting(self.first_wait or 0.0)
                await asyncio.to_thread(self.map.ready.wait, more)
        if not self.map.files:
            return None
        return await asyncio.to_thread(self.map.index)

    def _say_waiting(self, wait: float) -> None:
        progress = self.map.progress or self.in_child
        done = f": {progress[0]:,} of {progress[1]:,} files so far" \
            if progress is not None and progress[1] else ""
        self.engine.bus.publish(EngineNotice(
            message=f"the request waits for the symbol map to be built{done} "
                    f"(up to {wait:.0f} s)", level="info"))

    async def _show(self) -> None:
        if not self.map.files:
            return
        text = await asyncio.to_thread(lambda: outline(self.map.index()))
        try:
            item = self.engine.get(ITEM_ID)
        except UnknownItem:
            self.engine.add(ContextItem(
                id=ITEM_ID, kind=ItemKind.LISTING, layer=Layer.TASK, title=TITLE,
                content=text, state=ItemState.DROPPED, origin=Origin.AUTO,
                source=Source(path=None)), reason="repository map built")
            return
        if item.content != text and not item.edited:
            self.engine.update(ITEM_ID, content=text, reason="repository map updated")


def _failure(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ChildFailed) else f"failed ({type(exc).__name__})"
