"""A workspace session: the engine filled from the workspace's sources and bound to its log.

Opening never fails on the workspace's content: unreadable memory files, a read-only
workspace or a corrupt session file become notices, and swetui carries on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swetui.config import Settings
from swetui.engine.blobs import BlobStore
from swetui.engine.budget import DEFAULT_WINDOW, BudgetSettings, scaled_budget
from swetui.engine.bus import EventBus
from swetui.engine.context import ContextEngine
from swetui.engine.item_records import item_from_record, item_record
from swetui.engine.items import ItemKind
from swetui.engine.sources import memory_items, system_items
from swetui.engine.store import (
    SessionLog,
    SessionStore,
    load_session,
    session_files,
    session_origin,
)
from swetui.engine.tokens import TokenCounter
from swetui.engine.watcher import changed_while_closed
from swetui.files import SecretRule
from swetui.messages import ToolSchema
from swetui.paths import WorkspacePaths, linked_folder

SOURCE_KINDS = frozenset({ItemKind.SYSTEM_PROMPT, ItemKind.TOOL_SCHEMA, ItemKind.MEMORY_FILE,
                          ItemKind.SESSION_NOTES})


class WorkspaceError(Exception):
    """The workspace cannot be opened at all (missing, not a directory, unreadable)."""


def budget_settings(settings: Settings, window: int | None = None) -> BudgetSettings:
    """The budgets for `settings`: the window is the user's `context_limit`, else `window`
    (what the server says), else the default; unset budgets scale with it."""
    limit = settings.context_limit or window or DEFAULT_WINDOW
    return scaled_budget(limit, threshold=settings.compaction_threshold,
                         task_share=settings.task_share, reserve=settings.reserve_tokens,
                         memory=settings.memory_budget, summary=settings.summary_budget)


def check_workspace(path: Path) -> Path:
    """The workspace's resolved root, or a WorkspaceError that says what is wrong."""
    try:
        root = path.expanduser().resolve(strict=True)
    except (OSError, RuntimeError):
        raise WorkspaceError(f"{path}: no such directory") from None
    if not root.is_dir():
        raise WorkspaceError(f"{path}: not a directory")
    try:
        next(root.iterdir(), None)
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return root


@dataclass
class Workspace:
    """The engine of one workspace, its store and what the user should be told."""

    root: Path
    settings: Settings
    paths: WorkspacePaths
    engine: ContextEngine
    store: SessionStore
    notices: list[str] = field(default_factory=list)
    replayed: list[dict[str, Any]] = field(default_factory=list)
    """Events of a resumed session (the agent and UI rebuild their own state from them)."""

    @property
    def session_id(self) -> str:
        return self.store.session_id

    def record(self, event_type: str, data: dict[str, Any], *, commit: bool = True) -> None:
        self.store.append(event_type, data, commit=commit)

    def close(self) -> None:
        self.store.close()


def open_workspace(path: Path, settings: Settings, schemas: Iterable[ToolSchema], *,
                   model: str = "", resume: str | None = None, continue_last: bool = False,
                   persist: bool = True, bus: EventBus | None = None,
                   counter: TokenCounter | None = None, origin: str | None = None,
                   secrets: SecretRule | None = None) -> Workspace:
    """Open `path`: load sources, replay a resumed session, bind the log for new events
    (a resumed file item whose file is now a secret, by `secrets`, is not read again)."""
    root = check_workspace(path)
    paths = WorkspacePaths(root)
    notices: list[str] = []
    writable = persist and paths.writable()
    if persist and not writable:
        notices.append(f"{paths.dir} cannot be created or written: this session cannot be saved "
                       "(context is shown, nothing is persisted)")
    linked = [link for folder in (paths.sessions, paths.logs, paths.blobs, paths.memory)
              if writable and (link := linked_folder(folder)) is not None]
    if linked:
        notices.append(f"{linked[0]} is a link (the workspace came with it): swetui writes "
                       "nothing through it, so what it would keep there is not saved")
    blobs = BlobStore(paths.blobs if writable else None)
    engine = ContextEngine(budget_settings(settings), counter=counter, bus=bus, blobs=blobs,
                           model=model)
    items = system_items(root, schemas)
    memory, warnings = memory_items(root, paths.session_notes, secrets)
    notices.extend(warnings)
    engine.add_many([*items, *memory], reason="loaded")

    loaded: SessionLog | None = None
    if resume or continue_last:
        loaded = _find_session(paths, resume, continue_last, notices, origin)
    store = SessionStore(paths.sessions if writable else None,
                         loaded.session_id if loaded else None, origin=origin)
    replayed: list[dict[str, Any]] = []
    if loaded is not None:
        notices.extend(loaded.warnings)
        store.continue_from(loaded)
        replayed = loaded.events
        _replay(engine, loaded.events)
    engine.recorder = lambda item: store.append("item", {"item": item_record(item, blobs)})
    if loaded is not None and (changed := changed_while_closed(engine, root, secrets)):
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5
                                          else "")
        notices.append(f"changed on disk since this session was saved: {shown} (re-read; "
                       "earlier reads of them are marked stale)")
    return Workspace(root, settings, paths, engine, store, notices, replayed)


def _find_session(paths: WorkspacePaths, resume: str | None, continue_last: bool,
                  notices: list[str], origin: str | None) -> SessionLog | None:
    if resume:
        candidate = paths.sessions / f"{resume}.jsonl"
        if "/" in resume or "\\" in resume or resume.startswith(".") or not candidate.is_file():
            raise WorkspaceError(f"no session {resume!r} in {paths.sessions} "
                                 "(`swetui sessions` lists them)")
        return load_session(candidate, repair=True)
    files = session_files(paths.sessions)
    newest = _preferred(files) if origin == "screen" else next(iter(files), None)
    if newest is None:
        notices.append("no earlier session to continue; starting a new one")
        return None
    loaded = load_session(newest, repair=True)
    first = next((str(event.get("text", "")) for event in loaded.events
                  if event.get("type") == "turn_started"), "")
    # Say which: the newest session may be a headless `swetui run`, not the last screen.
    words = " ".join(first.split())
    about = f": “{words[:40]}{'…' if len(words) > 40 else ''}”" if first else ""
    which = "the newest" if newest == files[0] else \
        f"the newest opened on screen; a newer headless run is {files[0].stem}"
    notices.append(f"continuing session {loaded.session_id}{about} ({which}; --resume ID "
                   "opens another)")
    return loaded


def _preferred(files: list[Path]) -> Path | None:
    """The screen's --continue: the newest session started on screen (or before origins were
    recorded), not a newer headless `swetui run`; the newest of any when all are runs."""
    return next((path for path in files if session_origin(path) != "run"),
                next(iter(files), None))


def _replay(engine: ContextEngine, events: list[dict[str, Any]]) -> None:
    """Rebuild the item set: the last record of each item wins. Source items keep the
    content just read from disk unless the user had edited them."""
    latest: dict[str, dict[str, Any]] = {}
    for event in events:
        if event.get("type") == "item" and isinstance(event.get("item"), dict):
            latest[event["item"].get("id", "")] = event["item"]
        elif event.get("type") == "turn_started":
            engine.turn = max(engine.turn, int(event.get("turn", 0)))
    with engine.batch("session restored"):
        for data in latest.values():
            try:
                item = item_from_record(data)
            except ValueError:
                continue
            if item.kind is ItemKind.TOOL_SCHEMA and item.id not in engine:
                continue  # a tool offered then (an MCP server's) comes back with its server
            if item.kind in SOURCE_KINDS and item.id in engine and item.original is None:
                current = engine.get(item.id)
                item = current.model_copy(update={"state": item.state, "pinned": item.pinned})
            engine.load(item)
