"""A file item remembers when its file was last modified (its payload's `mtime_ns`), so a
resumed session sees what changed on disk while swetui was closed: the item is re-read as the
watcher would have done, a `read_file` result that showed the file turns stale, and the user
is told which files."""

from __future__ import annotations

import os
from pathlib import Path

from swetui.agent.at_path import add_workspace_file
from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.config import Settings
from swetui.engine.context import ContextEngine
from swetui.engine.item_records import item_from_record, item_record
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Source
from swetui.engine.payloads import FilePayload, ToolCallPayload
from swetui.engine.retrieval import retrieve
from swetui.engine.workspace import Workspace, open_workspace


def opened(root: Path, resume: str | None = None) -> Workspace:
    return open_workspace(root, Settings(), TOOL_SCHEMAS, resume=resume)


def later(path: Path, text: str) -> None:
    """Rewrite `path` with a modification time clearly after the one it had (a coarse or
    frozen clock could otherwise give the same time)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


def file_item(engine: ContextEngine, rel: str) -> ContextItem:
    return next(item for item in engine.by_source(rel) if item.kind is ItemKind.FILE)


def add_read_result(workspace: Workspace, rel: str) -> str:
    """A `read_file` call that showed `rel` (history: it turns stale, never rewritten)."""
    engine = workspace.engine
    item = ContextItem(id=engine.new_id("t"), kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                       title=f"read_file {rel}", content=(workspace.root / rel).read_text(),
                       source=Source(path=rel, tool_call_id="call-1"),
                       payload=ToolCallPayload(name="read_file", arguments={"path": rel}))
    return engine.add(item).id


def test_an_added_file_records_its_mtime_and_the_log_keeps_it(workspace: Path) -> None:
    ws = opened(workspace)
    item = add_workspace_file(ws.engine, workspace, "src/app.py")
    assert item.payload == FilePayload(mtime_ns=(workspace / "src/app.py").stat().st_mtime_ns)
    assert item_from_record(item_record(item, ws.engine.blobs)).payload == item.payload
    session = ws.session_id
    ws.close()
    resumed = opened(workspace, resume=session)
    assert file_item(resumed.engine, "src/app.py").payload == item.payload
    resumed.close()


def test_a_file_changed_while_closed_is_read_again_on_resume(workspace: Path) -> None:
    ws = opened(workspace)
    add_workspace_file(ws.engine, workspace, "src/app.py")
    shown = add_read_result(ws, "src/app.py")
    session = ws.session_id
    ws.close()
    later(workspace / "src/app.py", "def greet(name):\n    return f'howdy {name}'\n")

    resumed = opened(workspace, resume=session)
    item = file_item(resumed.engine, "src/app.py")
    assert "howdy" in item.content and item.state is ItemState.INCLUDED
    assert item.payload == FilePayload(
        mtime_ns=(workspace / "src/app.py").stat().st_mtime_ns)
    assert resumed.engine.get(shown).state is ItemState.STALE
    assert any("src/app.py" in notice and "changed on disk" in notice
               for notice in resumed.notices), resumed.notices
    session = resumed.session_id
    resumed.close()
    # What was re-read is in the log: the next resume has nothing left to catch up.
    again = opened(workspace, resume=session)
    assert "howdy" in file_item(again.engine, "src/app.py").content
    assert not any("changed on disk" in notice for notice in again.notices), again.notices
    again.close()


def test_an_unchanged_file_resumes_as_it_was(workspace: Path) -> None:
    ws = opened(workspace)
    add_workspace_file(ws.engine, workspace, "src/app.py")
    add_read_result(ws, "src/app.py")
    before = ws.engine.assemble().request.canonical_json()
    session = ws.session_id
    ws.close()
    resumed = opened(workspace, resume=session)
    assert resumed.engine.assemble().request.canonical_json() == before
    assert not any("changed on disk" in notice for notice in resumed.notices)
    resumed.close()


def test_a_file_deleted_while_closed_turns_its_item_stale(workspace: Path) -> None:
    ws = opened(workspace)
    add_workspace_file(ws.engine, workspace, "src/app.py")
    session = ws.session_id
    ws.close()
    (workspace / "src/app.py").unlink()
    resumed = opened(workspace, resume=session)
    item = file_item(resumed.engine, "src/app.py")
    assert item.state is ItemState.STALE and item.stale_reason == "deleted on disk"
    assert any("src/app.py" in notice for notice in resumed.notices), resumed.notices
    resumed.close()


def test_a_file_the_request_named_is_read_again_when_it_changed_while_closed(
        workspace: Path) -> None:
    ws = opened(workspace)
    found = retrieve(workspace, "what does src/app.py do?", ws.engine, turn=1)
    [item] = [item for item in found.items if item.kind is ItemKind.FILE]
    assert item.payload == FilePayload(mtime_ns=(workspace / "src/app.py").stat().st_mtime_ns)
    ws.engine.add(item)
    session = ws.session_id
    ws.close()
    later(workspace / "src/app.py", "def greet(name):\n    return f'howdy {name}'\n")
    resumed = opened(workspace, resume=session)
    assert "howdy" in file_item(resumed.engine, "src/app.py").content
    assert any("src/app.py" in notice and "changed on disk" in notice
               for notice in resumed.notices), resumed.notices
    resumed.close()
