"""The session's symbol map: built in the background once the session starts, shown as a
pinnable repository outline, used by the first request's retrieval, cached on disk, and kept
current by the file watcher."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import threading
import zlib
from pathlib import Path

from swetui.agent import AgentSession
from swetui.agent.repository_map import ITEM_ID
from swetui.engine.items import ItemKind, ItemState
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.options import LaunchOptions
from tests.trusted import trust_workspace
from tests.waiting import WAIT, eventually, watching

from .scripted import ScriptedProvider, answer

SOURCE = '''\
class Ledger:
    """Keeps the entries of one account."""

    def settle_balance(self, entries):
        total = sum(entry.amount for entry in entries)
        if total < 0:
            raise OverdrawnError(f"account {self.name} is overdrawn by {-total}")
        return total
'''


def open_session(root: Path, *scripts: object) -> AgentSession:
    provider = ScriptedProvider(*(scripts or (answer("ok"),)))  # type: ignore[arg-type]
    return AgentSession.open(LaunchOptions(path=root), env={}, provider=provider)


def ledger_workspace(workspace: Path) -> Path:
    (workspace / "src" / "ledger.py").write_text(SOURCE)
    return workspace


async def test_the_outline_is_an_item_to_pin_and_the_first_request_uses_the_map(workspace):
    root = ledger_workspace(workspace)
    session = open_session(root)
    session.start()
    finished = await session.send("OverdrawnError: account acme is overdrawn by 12")
    assert finished.error is None
    spans = [i for i in session.engine if i.kind is ItemKind.SPAN]
    assert [span.source.path for span in spans] == ["src/ledger.py"]
    assert "def settle_balance" in spans[0].content
    await eventually(lambda: ITEM_ID in {item.id for item in session.engine},
                     "the outline was added")
    outline = session.engine.get(ITEM_ID)
    assert outline.state is ItemState.DROPPED and "src/ledger.py" in outline.content
    assert "class Ledger" in outline.content and "def settle_balance" in outline.content
    before = session.engine.assemble().request
    assert "Repository map" not in str(before.messages) + before.context
    session.engine.pin(ITEM_ID)
    after = session.engine.assemble().request  # pinned material follows the newest message
    assert "Repository map" in after.context
    await session.aclose()


async def test_the_map_is_cached_under_swetui_and_unchanged_files_are_not_parsed_again(
        workspace):
    root = ledger_workspace(workspace)
    session = open_session(root)
    session.start()
    await eventually(lambda: session.repo_map.map.ready.is_set(), "the map was built")
    await session.aclose()
    cache = root / ".swetui" / "symbols" / "map.sqlite"
    assert cache.exists() and oct(cache.stat().st_mode & 0o777) == "0o600"
    # Same size and time, other text: only a cached entry can still name `settle_balance`.
    path = root / "src" / "ledger.py"
    stamp = path.stat()
    path.write_text(SOURCE.replace("settle_balance", "settle_balanze"))
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    cached = SymbolMap(root, cache_path=cache)
    cached.build()
    assert "settle_balance" in cached.index().by_name
    fresh = SymbolMap(root)
    fresh.build()
    assert "settle_balance" not in fresh.index().by_name
    assert "settle_balanze" in fresh.index().by_name


async def test_the_watcher_keeps_the_map_current(workspace):
    root = ledger_workspace(workspace)
    session = open_session(root)
    session.start()
    await eventually(lambda: session.repo_map.map.ready.is_set(), "the map was built")
    watch = asyncio.create_task(session.watch())
    try:
        await watching(root / "probe.py", lambda text: "probe.py" in session.repo_map.map.files)
        (root / "src" / "audit.py").write_text("def reconcile_accounts(ledgers):\n    pass\n")
        await eventually(lambda: "reconcile_accounts" in session.repo_map.map.index().by_name,
                         "the new file's function was mapped")
        (root / "src" / "ledger.py").unlink()
        await eventually(lambda: "Ledger" not in session.repo_map.map.index().by_name,
                         "the deleted file left the map")
        await eventually(lambda: "reconcile_accounts" in session.engine.get(ITEM_ID).content,
                         "the outline shows the new function")
    finally:
        watch.cancel()
        await session.aclose()


async def test_with_the_map_switched_off_nothing_is_built_and_retrieval_greps(workspace):
    root = ledger_workspace(workspace)
    (root / ".swetui").mkdir()
    (root / ".swetui" / "config.toml").write_text("symbol_map = false\n")
    trust_workspace(root)
    session = open_session(root)
    assert session.settings.symbol_map is False
    session.start()
    await session.send("where is settle_balance?")
    assert not session.repo_map.map.ready.is_set()
    kinds = {item.kind for item in session.engine}
    assert ItemKind.SPAN not in kinds and ItemKind.GREP in kinds
    await session.aclose()


def test_a_key_in_a_source_literal_never_reaches_the_map_on_disk(workspace, planted_secrets):
    key = next(iter(planted_secrets.values()))
    (workspace / "src" / "settings.py").write_text(f'API_KEY = "{key}"\nNAME = "demo app"\n')
    cache = workspace / ".swetui" / "symbols" / "map.sqlite"
    symbols = SymbolMap(workspace, cache_path=cache)
    symbols.build()
    with contextlib.closing(sqlite3.connect(cache)) as connection:  # literals are compressed
        stored = b"".join(zlib.decompress(literals) for (literals,) in connection.execute(
            "SELECT literals FROM files WHERE literals != x''"))
    assert key.encode() not in cache.read_bytes() + stored and b"demo app" in stored


async def test_a_change_made_while_the_map_builds_is_in_the_map_when_it_ends(workspace):
    root = ledger_workspace(workspace)
    (root / "src" / "zz_last.py").write_text("def last():\n    pass\n")
    session = open_session(root)
    symbols = session.repo_map.map
    reached, go = threading.Event(), threading.Event()
    excluded = symbols.exclude

    def hold_at_the_last_file(rel: str) -> bool:
        if rel == "src/zz_last.py":  # src/ledger.py (sorted first) is parsed already
            reached.set()
            go.wait(WAIT)
        return excluded(rel) if excluded is not None else False

    symbols.exclude = hold_at_the_last_file
    session.start()
    try:
        await asyncio.to_thread(reached.wait, WAIT)
        (root / "src" / "ledger.py").write_text(SOURCE + "\n\ndef reopen_account():\n    pass\n")
        await session.repo_map.changed(["src/ledger.py"])  # what the watcher reports
    finally:
        go.set()
    await eventually(lambda: "reopen_account" in symbols.index().by_name,
                     "the change made during the build reached the map")
    await session.aclose()


async def test_the_cache_follows_the_watcher_with_one_write_per_burst(workspace):
    root = ledger_workspace(workspace)
    session = open_session(root)
    session.start()
    await eventually(lambda: session.repo_map.map.ready.is_set(), "the map was built")
    cache = root / ".swetui" / "symbols" / "map.sqlite"
    for n in range(3):
        (root / "src" / f"extra{n}.py").write_text(f"def extra_function_{n}():\n    pass\n")
        await session.repo_map.changed([f"src/extra{n}.py"])
        assert f"extra_function_{n}" in session.repo_map.map.index().by_name  # at once
    await eventually(lambda: b"extra_function_2" in cache.read_bytes(), "the cache was written")
    assert all(f"extra_function_{n}".encode() in cache.read_bytes() for n in range(3))
    await session.aclose()


async def test_a_hard_link_of_the_env_file_stays_out_of_the_map(workspace: Path) -> None:
    """A workspace's `config.py` that is another name (hard link) of `.env` is not mapped:
    its values would sit in plain text in `.swetui/symbols/map.sqlite`."""
    root = ledger_workspace(workspace)
    (root / ".env").write_text('STRIPE_TOKEN = "sk_live_51HxQzPlantedValue9876"\n')
    os.link(root / ".env", root / "src" / "config.py")
    session = open_session(root)
    session.start()
    try:
        await eventually(lambda: ITEM_ID in {item.id for item in session.engine},
                         "the outline was added")
        assert "src/ledger.py" in session.engine.get(ITEM_ID).content
        assert "config.py" not in session.engine.get(ITEM_ID).content
    finally:
        await session.aclose()
    stored = b"".join(path.read_bytes() for path in root.rglob("map.sqlite*"))
    assert stored and b"sk_live_51HxQz" not in stored
