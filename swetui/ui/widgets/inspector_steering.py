"""What the inspector's keys change, without the widget: pin or unpin, drop or restore a set
of items through the engine's public API, and re-read items' files from disk.

The engine's events then repaint the inspector's rows and the gauge, so the screen always
shows what the engine holds.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from swetui.agent import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState
from swetui.engine.payloads import FilePayload
from swetui.engine.sources import LoadedText, read_workspace_text
from swetui.files import SecretFile, read_error

REFRESHABLE = frozenset({ItemKind.FILE, ItemKind.MEMORY_FILE, ItemKind.SESSION_NOTES})
"""Kinds whose content is a file's text, so re-reading the file refreshes them."""

REFRESH_MAX_BYTES = 256_000


def is_refreshable(item: ContextItem) -> bool:
    """Whether re-reading a file refreshes this item (a file's text, not a tool's result)."""
    return bool(item.source.path) and item.kind in REFRESHABLE


def toggle_pins(engine: ContextEngine, items: list[ContextItem]) -> None:
    """Pin the items (all already pinned: unpin them), as one change."""
    if not items:
        return
    pin = not all(item.pinned for item in items)
    with engine.batch("pinned" if pin else "unpinned"):
        for item in items:
            if pin:
                engine.pin(item.id)
            else:
                engine.unpin(item.id)


def toggle_dropped(engine: ContextEngine, items: list[ContextItem]) -> None:
    """Drop the items from the request (all already out: restore them), as one change."""
    if not items:
        return
    out = (ItemState.DROPPED, ItemState.COMPACTED, ItemState.ARCHIVED)
    restore = all(item.state in out and not item.pinned for item in items)
    with engine.batch("restored" if restore else "dropped"):
        for item in items:
            if restore:
                engine.restore(item.id)
            else:
                engine.drop(item.id)


@dataclass(frozen=True)
class Unreadable:
    """Why an item's file could not be re-read, as the user is told."""

    message: str
    severity: Literal["warning", "error"]


def read_item_file(root: Path, relative: str, current: int = 0) -> LoadedText | Unreadable:
    """The text of an item's file (`relative` to `root`, still inside it); blocking. Reads up
    to `REFRESH_MAX_BYTES`, or the item's `current` size in characters if that is more.
    A file that has become another name of a secret file (a link to `.env`, a hard link of
    it) is not read: refreshing it would send the secret to the model."""
    limit = max(REFRESH_MAX_BYTES, current)
    secrets = secret_files(root)
    refused = Unreadable(f"{relative} now leads to a file that may hold secrets; not read",
                         "error")
    if secrets(relative):
        return refused
    try:
        loaded = read_workspace_text(root, relative, limit, secrets.opened)
    except SecretFile:
        return refused
    except FileNotFoundError:
        return Unreadable(f"{relative} is gone from disk", "warning")
    except OSError as exc:
        return Unreadable(read_error(relative, exc), "error")
    if loaded is None:
        return Unreadable(f"{relative} is now a binary file", "error")
    return loaded


async def refresh_from_disk(engine: ContextEngine, root: Path,
                            item_ids: list[str]) -> tuple[int, list[Unreadable]]:
    """Re-read these items' files off the event loop and hand each text to the engine (an
    item gone meanwhile is skipped); how many were refreshed, and what could not be read."""
    refreshed, problems = 0, []
    for item_id in item_ids:
        item = engine.get(item_id) if item_id in engine else None
        if item is None or not item.source.path:
            continue
        loaded = await asyncio.to_thread(read_item_file, root, item.source.path,
                                         len(item.content))
        if isinstance(loaded, Unreadable):
            problems.append(loaded)
        elif item_id in engine:
            payload = FilePayload(mtime_ns=loaded.mtime_ns) if item.kind is ItemKind.FILE \
                else item.payload
            engine.update(item_id, content=loaded.text, original=None, payload=payload,
                          state=ItemState.INCLUDED, reason="refreshed from disk")
            refreshed += 1
    return refreshed, problems
