"""File watching: a file that changes on disk updates its context items and the budget at once.

Files the context carries as files (pinned files, @path files, retrieved files, project
memory, session notes) are re-read and their content replaced. Tool results that showed a file
(`read_file`) are history: they are marked stale, never silently rewritten. A deleted file
marks its items stale with a note. `refresh` re-reads a stale item when the user asks.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from watchfiles import Change, awatch

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState
from swetui.engine.payloads import FilePayload, ItemPayload, ShortlistPayload
from swetui.engine.sources import MEMORY_MAX_BYTES, LoadedText, read_workspace_text
from swetui.files import TOOL_DIRS, NotRegularFile, SecretFile, SecretRule

log = logging.getLogger(__name__)

IGNORED_DIRS = TOOL_DIRS  # not .swetui: session notes under .swetui/memory are watched
WATCHED_STATE = (".swetui", "memory")
"""The one part of `.swetui/` that is watched: session notes."""
TEMP_SUFFIXES = ("~", ".swp", ".swx", ".swo", ".tmp", ".part", ".crdownload", ".bak")
TEMP_PREFIXES = (".#", "#", ".~")
FILE_MAX_BYTES = 256_000
REREAD_KINDS = frozenset({ItemKind.FILE, ItemKind.MEMORY_FILE, ItemKind.SESSION_NOTES})
"""Items that show a file as it is now: re-read on change."""
SHOWN_BY_TOOLS = frozenset({"read_file"})
"""Tool calls whose result showed a file: marked stale on change."""


def is_ignored(root: Path, path: str) -> bool:
    """Whether a change at `path` (absolute) is noise: VCS and tool directories, swetui's
    own state (but its session notes), editor swap and temp files."""
    try:
        parts = Path(path).relative_to(root).parts
    except ValueError:
        return True
    if not parts:
        return True
    if parts[0] == ".swetui":
        if tuple(parts[:2]) != WATCHED_STATE:
            return True
    elif any(part in IGNORED_DIRS for part in parts[:-1]):
        return True
    name = parts[-1]
    return name.endswith(TEMP_SUFFIXES) or name.startswith(TEMP_PREFIXES) or name == "4913"


def _max_bytes(item: ContextItem) -> int:
    if item.kind in (ItemKind.MEMORY_FILE, ItemKind.SESSION_NOTES):
        return MEMORY_MAX_BYTES
    return max(FILE_MAX_BYTES, len(item.content.encode("utf-8", "replace")))


def _stale(engine: ContextEngine, item: ContextItem, note: str) -> None:
    if item.state is ItemState.STALE and item.stale_reason == note:
        return
    engine.update(item.id, state=ItemState.STALE, stale_reason=note,
                  reason=f"stale: {note}")


def apply_change(engine: ContextEngine, root: Path, rel: str, *, deleted: bool,
                 secrets: SecretRule | None = None) -> list[str]:
    """Bring the items that reference `rel` up to date with the disk; returns their ids.
    A file that is now a secret (`secrets`: by its name, its target, or the file opened: a
    hard link of `.env` put in its place) is not read again: its items turn stale."""
    touched = []
    for item in _showing(engine, rel):
        if item.kind is ItemKind.TOOL_CALL:
            if item.call.name in SHOWN_BY_TOOLS and item.state is ItemState.INCLUDED:
                _stale(engine, item, "deleted on disk" if deleted else "changed on disk since "
                       "it was read")
                touched.append(item.id)
        elif item.kind is ItemKind.SPAN and item.state is ItemState.INCLUDED:
            # A part of a file, numbered: re-reading would shift its lines; say it moved on.
            _stale(engine, item, "deleted on disk" if deleted else "changed on disk since "
                   "it was retrieved")
            touched.append(item.id)
        elif item.kind is ItemKind.SHORTLIST and item.state is ItemState.INCLUDED:
            # its lines point into several files: say which one moved on
            _stale(engine, item, f"{rel} {'deleted' if deleted else 'changed'} on disk since "
                   "it was retrieved")
            touched.append(item.id)
        elif item.kind in REREAD_KINDS and item.state is not ItemState.DROPPED:
            if _reread(engine, root, item, deleted=deleted, secrets=secrets):
                touched.append(item.id)
    return touched


def _showing(engine: ContextEngine, rel: str) -> list[ContextItem]:
    """The items showing `rel`: those it is the source of, and shortlists pointing into it
    (one pass over the items)."""
    return [item for item in engine if item.source.path == rel
            or (isinstance(item.payload, ShortlistPayload) and rel in item.payload.paths)]


def _reread(engine: ContextEngine, root: Path, item: ContextItem, *, deleted: bool,
            secrets: SecretRule | None) -> bool:
    path = root / (item.source.path or "")
    if deleted or not path.exists():
        _stale(engine, item, "deleted on disk")
        return True
    if item.edited:  # the user's own text for this item wins; say the file moved on
        _stale(engine, item, "changed on disk; your edit is kept")
        return True
    try:
        loaded = _read_again(root, item, secrets)
    except NotRegularFile as exc:
        _stale(engine, item, f"now {exc.kind}; not read")
        return True
    except OSError as exc:
        _stale(engine, item, f"cannot be read ({exc.strerror or exc})")
        return True
    if loaded is None:
        _stale(engine, item, "now a binary file")
        return True
    changes: dict[str, object] = {}
    if engine.redact(loaded.text) != item.content:
        changes["content"] = loaded.text
    if (payload := _file_payload(item, loaded)) != item.payload:
        changes["payload"] = payload
    if item.state is ItemState.STALE:
        changes["state"] = ItemState.INCLUDED
        changes["stale_reason"] = None
    if not changes:
        return False
    engine.update(item.id, reason="changed on disk", **changes)
    return True


def _read_again(root: Path, item: ContextItem, secrets: SecretRule | None) -> LoadedText | None:
    """The item's file as it is now, unless it is now a secret (SecretFile, an OSError)."""
    rel = item.source.path or ""
    if secrets is not None and secrets(rel):
        raise SecretFile(rel)
    return read_workspace_text(root, rel, _max_bytes(item),
                               refuse=secrets.opened if secrets is not None else None)


def _file_payload(item: ContextItem, loaded: LoadedText) -> ItemPayload | None:
    """A file item's payload after its file was read again (others keep theirs)."""
    if item.kind is ItemKind.FILE or isinstance(item.payload, FilePayload):
        return FilePayload(mtime_ns=loaded.mtime_ns)
    return item.payload


def changed_while_closed(engine: ContextEngine, root: Path,
                         secrets: SecretRule | None = None) -> list[str]:
    """Bring a resumed session's file items up to date with the disk: each file whose
    modification time differs from the one its item recorded (or that is gone) is handled as
    the watcher handles a change (re-read; `read_file` results that showed it turn stale).
    Returns those files' paths. Items without a recorded time (older logs) stay as they are."""
    changed: dict[str, bool] = {}
    for item in engine:
        payload, rel = item.payload, item.source.path
        if not isinstance(payload, FilePayload) or payload.mtime_ns is None or not rel \
                or item.state is ItemState.DROPPED or rel in changed:
            continue
        try:
            now: int | None = os.stat(root / rel).st_mtime_ns
        except FileNotFoundError:
            now = None
        except OSError:
            continue  # unreadable now: the item keeps what it has, as the watcher would
        if now != payload.mtime_ns:
            changed[rel] = now is None
    with engine.batch("files changed on disk while swetui was closed"):
        for rel, deleted in changed.items():
            apply_change(engine, root, rel, deleted=deleted, secrets=secrets)
    return sorted(changed)


def refresh(engine: ContextEngine, root: Path, item_id: str,
            secrets: SecretRule | None = None) -> ContextItem:
    """Re-read a (stale) item's file on the user's request: its content becomes the file as
    it is now and it is sent again. FileNotFoundError when the file is gone."""
    item = engine.get(item_id)
    if not item.source.path:
        raise ValueError(f"{item_id} does not come from a file; nothing to refresh")
    path = Path(root) / item.source.path
    if not path.exists():
        raise FileNotFoundError(f"{item.source.path} no longer exists; the item stays stale")
    try:
        loaded = _read_again(root, item, secrets)
    except NotRegularFile as exc:
        raise ValueError(f"{exc.message}; the item stays stale") from None
    except SecretFile as exc:
        raise ValueError(f"{exc.strerror}; the item stays stale") from None
    if loaded is None:
        raise ValueError(f"{item.source.path} is now a binary file; the item stays stale")
    changes: dict[str, object] = {"stale_reason": None}
    if item.kind is ItemKind.TOOL_CALL:
        changes["payload"] = item.call.model_copy(
            update={"refreshed": f"refreshed from disk in turn {engine.turn}"})
    else:
        changes["payload"] = _file_payload(item, loaded)
    state = ItemState.INCLUDED if item.state is ItemState.STALE else item.state
    return engine.update(item_id, content=loaded.text, state=state, reason="refreshed from disk",
                         **changes)


class WorkspaceWatcher:
    """Watches the workspace with `watchfiles.awatch` and keeps file-backed items current.

    Run `run()` in one exclusive worker; `stop()` ends it. `enabled=False` makes `run()`
    return at once (tests and `--no-watch` use it).
    """

    def __init__(self, root: Path, engine: ContextEngine, *, debounce_ms: int = 50,
                 step_ms: int = 20, enabled: bool = True,
                 on_change: Callable[[list[str]], object] | None = None,
                 secrets: SecretRule | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.secrets = secrets
        """What must not be read again (the agent's `secret_files`)."""
        self.engine = engine
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.enabled = enabled
        self.on_change = on_change
        """Told the workspace-relative paths of each batch (the symbol map follows them)."""
        self.running = False
        self._stop: asyncio.Event | None = None
        self._stopped = False

    def _filter(self, change: Change, path: str) -> bool:
        return not is_ignored(self.root, path)

    async def run(self) -> None:
        """Watch until `stop()`; each batch of changes is applied in one engine batch."""
        if not self.enabled or self._stopped:
            return
        self._stop = asyncio.Event()
        self.running = True
        try:
            async for changes in awatch(self.root, watch_filter=self._filter,
                                        debounce=self.debounce_ms, step=self.step_ms,
                                        stop_event=self._stop, ignore_permission_denied=True):
                self.apply(changes)
        finally:
            self.running = False

    def stop(self) -> None:
        self._stopped = True
        if self._stop is not None:
            self._stop.set()

    def apply(self, changes: Iterable[tuple[Change, str]]) -> list[str]:
        """Apply one batch of filesystem changes (the last change per path wins)."""
        latest: dict[str, Change] = {}
        for change, path in sorted(changes, key=lambda pair: pair[1]):
            try:
                rel = Path(path).relative_to(self.root).as_posix()
            except ValueError:
                continue
            latest[rel] = change
        touched: list[str] = []
        with self.engine.batch("changed on disk"):
            for rel, change in latest.items():
                deleted = change is Change.deleted and not (self.root / rel).exists()
                try:
                    touched += apply_change(self.engine, self.root, rel, deleted=deleted,
                                            secrets=self.secrets)
                except Exception:  # one odd file must not stop the watcher
                    log.exception("could not apply a change to %s", rel)
        if self.on_change is not None and latest:
            self.on_change(list(latest))
        return touched
