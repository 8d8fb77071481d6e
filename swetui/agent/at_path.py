"""`@path`: a workspace file the user adds to the context, as a user item in the task
layer."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.sandbox import secret_files
from swetui.agent.tools.workspace import resolve_inside
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.payloads import FilePayload
from swetui.engine.sources import read_text_file
from swetui.files import SecretFile, read_error

ADD_PATH_MAX_BYTES = 256_000


def add_workspace_file(engine: ContextEngine, root: Path, path: str) -> ContextItem:
    """Add `path` (re-adding replaces the content); raises ValueError with a message."""
    target = resolve_inside(root, path)
    relative = target.relative_to(root).as_posix()
    if not target.exists():
        raise ValueError(f"{path}: no such file in the workspace")
    if target.is_dir():
        raise ValueError(f"{path}: is a directory; name a file")
    secrets = secret_files(root)  # by its name, its target, or the file opened
    try:
        if secrets(relative, walked=True):
            raise SecretFile(relative)
        loaded = read_text_file(target, ADD_PATH_MAX_BYTES, name=relative,
                                follow_symlinks=False, refuse=secrets.opened)
    except OSError as exc:
        raise ValueError(read_error(relative, exc)) from None
    if loaded is None:
        raise ValueError(f"{path}: binary file, not added")
    payload = FilePayload(mtime_ns=loaded.mtime_ns)
    for item in engine.by_source(relative):
        if item.kind is ItemKind.FILE and item.origin is Origin.USER:
            return engine.update(item.id, content=loaded.text, payload=payload,
                                 reason="re-added")
    note = f" ({'; '.join(loaded.notes)})" if loaded.notes else ""
    item = ContextItem(id=engine.new_id("f"), kind=ItemKind.FILE, layer=Layer.TASK,
                       title=f"{relative}{note}", content=loaded.text, origin=Origin.USER,
                       source=Source(path=relative), turn_created=engine.turn,
                       payload=payload)
    return engine.add(item, reason=f"you added {relative}")
