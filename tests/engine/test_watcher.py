"""File watching with real files: changed files update their items and the budget at once,
read_file results go stale, deletions are noted, and the watcher can be switched off."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from swetui.engine.context import ContextEngine
from swetui.engine.events import ItemsChanged
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Source
from swetui.engine.payloads import ToolCallPayload
from swetui.engine.watcher import WorkspaceWatcher, is_ignored, refresh
from tests.waiting import WAIT, eventually, watching


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    (root / "SWETUI.md").write_text("# Memory\nshort\n")
    return root


def file_item(engine: ContextEngine, path: str, content: str, **extra) -> ContextItem:
    return engine.add(ContextItem(id=engine.new_id("f"), kind=extra.pop("kind", ItemKind.FILE),
                                  layer=extra.pop("layer", Layer.TASK), title=path,
                                  content=content, source=Source(path=path), **extra))


async def wait_for(condition) -> None:
    await eventually(condition, "the change reached the engine")


async def start(watcher: WorkspaceWatcher) -> asyncio.Task:
    """Run `watcher` and return once it is live (a probe file's item follows the disk)."""
    task = asyncio.create_task(watcher.run())
    probe = file_item(watcher.engine, "probe.txt", "")
    await watching(watcher.root / "probe.txt",
                   lambda text: watcher.engine.get(probe.id).content == text)
    return task


async def stop(watcher: WorkspaceWatcher, task: asyncio.Task) -> None:
    watcher.stop()
    await asyncio.wait_for(task, WAIT)


async def test_a_changed_file_updates_its_item_and_the_budget(repo):
    engine = ContextEngine()
    item = file_item(engine, "src/app.py", "x = 1\n", pinned=True)
    memory = file_item(engine, "SWETUI.md", "# Memory\nshort\n", kind=ItemKind.MEMORY_FILE,
                       layer=Layer.MEMORY)
    watcher = WorkspaceWatcher(repo, engine)
    task = await start(watcher)
    before = engine.budget().total
    reasons = []
    engine.bus.subscribe(lambda event: reasons.append(event.reason), ItemsChanged)
    (repo / "src/app.py").write_text("x = 1\n" + "y = compute_everything(x)\n" * 200)
    (repo / "SWETUI.md").write_text("# Memory\nnow longer and different\n")
    await wait_for(lambda: engine.get(item.id).content.count("compute_everything") == 200
                   and "different" in engine.get(memory.id).content)
    await stop(watcher, task)
    assert engine.get(item.id).tokens > item.tokens
    assert engine.budget().total > before + 1000
    assert "changed on disk" in reasons


async def test_read_file_results_go_stale_instead_of_changing(repo):
    engine = ContextEngine()
    read = engine.add(ContextItem(id="c1", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                                  title="read_file", content="x = 1\n",
                                  source=Source(path="src/app.py", tool_call_id="k1"),
                                  payload=ToolCallPayload(name="read_file",
                                                          arguments={"path": "src/app.py"})))
    watcher = WorkspaceWatcher(repo, engine)
    task = await start(watcher)
    (repo / "src/app.py").write_text("x = 2\n")
    await wait_for(lambda: engine.get(read.id).state is ItemState.STALE)
    await stop(watcher, task)
    assert engine.get(read.id).content == "x = 1\n"  # history is not rewritten
    refreshed = refresh(engine, repo, read.id)
    assert refreshed.content == "x = 2\n" and refreshed.state is ItemState.INCLUDED


async def test_a_deleted_file_marks_its_items_stale_with_a_note(repo):
    engine = ContextEngine()
    item = file_item(engine, "src/app.py", "x = 1\n")
    watcher = WorkspaceWatcher(repo, engine)
    task = await start(watcher)
    (repo / "src/app.py").unlink()
    await wait_for(lambda: engine.get(item.id).state is ItemState.STALE)
    await stop(watcher, task)
    assert engine.get(item.id).stale_reason == "deleted on disk"
    with pytest.raises(FileNotFoundError, match="no longer exists"):
        refresh(engine, repo, item.id)
    (repo / "src/app.py").write_text("back = True\n")
    assert refresh(engine, repo, item.id).state is ItemState.INCLUDED


async def test_a_disabled_watcher_changes_nothing(repo):
    engine = ContextEngine()
    item = file_item(engine, "src/app.py", "x = 1\n")
    watcher = WorkspaceWatcher(repo, engine, enabled=False)
    await asyncio.wait_for(watcher.run(), WAIT)  # returns at once
    # A live watcher on the same files is the signal: once it has the change, a disabled
    # one that reacted at all would have it too.
    live_engine = ContextEngine()
    live_item = file_item(live_engine, "src/app.py", "x = 1\n")
    live = WorkspaceWatcher(repo, live_engine)
    task = await start(live)
    (repo / "src/app.py").write_text("x = 99\n")
    await wait_for(lambda: live_engine.get(live_item.id).content == "x = 99\n")
    await stop(live, task)
    assert engine.get(item.id).content == "x = 1\n" and not watcher.running


def test_a_user_edit_is_kept_when_the_file_changes(repo):
    engine = ContextEngine()
    item = file_item(engine, "src/app.py", "x = 1\n")
    engine.edit(item.id, "my own note")
    (repo / "src/app.py").write_text("x = 3\n")
    from watchfiles import Change
    WorkspaceWatcher(repo, engine).apply([(Change.modified, str(repo / "src/app.py"))])
    changed = engine.get(item.id)
    assert changed.content == "my own note" and changed.state is ItemState.STALE
    assert "your edit is kept" in (changed.stale_reason or "")


def test_noise_is_ignored(repo):
    root = repo
    assert is_ignored(root, str(root / ".git" / "index"))
    assert is_ignored(root, str(root / "node_modules" / "x" / "y.js"))
    assert is_ignored(root, str(root / ".swetui" / "sessions" / "a.jsonl"))
    assert is_ignored(root, str(root / "src" / ".app.py.swp"))
    assert is_ignored(root, str(root / "src" / "app.py~"))
    assert not is_ignored(root, str(root / ".swetui" / "memory" / "session_notes.md"))
    assert not is_ignored(root, str(root / "src" / "app.py"))
