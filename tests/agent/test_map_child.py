"""A build with many files to parse runs in a child process that writes the map's cache; the
session loads the map from it and never parses those files itself. The child redacts what
the session redacts; a child that is killed or cannot start is said in a line, and the
session builds the map itself from what the child wrote (nothing is lost)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import sys
import zlib
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from swetui.agent import map_child
from swetui.agent.repository_map import RepositoryMap
from swetui.agent.sandbox.secret_files import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.events import EngineNotice
from swetui.engine.symbols.extract import extract
from swetui.engine.symbols.file_rank import rank_files
from swetui.secrets import STORE
from tests.engine.helpers import write_files

KEY = "sk-ant-api03-" + "q7Zx" * 12
FILES = {
    "src/ledger.py": "def settle_balance(entries):\n    return sum(entries)\n",
    "src/audit.py": "class Auditor:\n    def reconcile(self):\n"
                    "        raise ValueError('unbalanced books')\n",
    "src/client.py": f"TOKEN_MESSAGE = 'bad token {KEY} refused'\n"
                     "def connect(token):\n    return token\n",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_files(tmp_path, FILES)


@pytest.fixture
def parsed_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files this process parses from here on."""
    parsed: list[str] = []

    def counted(rel: str, data: bytes, language: str) -> Any:
        parsed.append(rel)
        return extract(rel, data, language)

    monkeypatch.setattr("swetui.engine.symbols.symbol_map.extract", counted)
    return parsed


def cache_of(root: Path) -> Path:
    return root / ".swetui" / "symbols" / "map.sqlite"


async def built(root: Path, child_files: int = 1, stall: float = map_child.STALL,
                ) -> tuple[RepositoryMap, list[str]]:
    """The session's map built as a session builds it; the notices it published."""
    engine = ContextEngine()
    notices: list[str] = []
    engine.bus.subscribe(lambda event: notices.append(getattr(event, "message", "")),
                        EngineNotice)
    repo = RepositoryMap(root, engine, cache_path=cache_of(root), exclude=secret_files(root))
    repo.child_files = child_files
    repo.child_stall = stall
    tasks: list[asyncio.Task[Any]] = []

    def spawn(coroutine: Coroutine[Any, Any, Any]) -> None:
        tasks.append(asyncio.get_running_loop().create_task(coroutine))

    repo.build(spawn)
    await asyncio.wait_for(asyncio.gather(*tasks), 120)
    return repo, notices


def names(repo: RepositoryMap) -> set[str]:
    return set(repo.map.index().by_name)


async def test_a_large_build_runs_in_a_child_and_the_session_loads_its_cache(
        workspace, parsed_here, monkeypatch):
    ranked: list[int] = []

    def rank(*args: Any) -> dict[str, float]:
        ranked.append(1)
        return rank_files(*args)

    monkeypatch.setattr("swetui.engine.symbols.symbol_index.rank_files", rank)
    repo, notices = await built(workspace)
    assert {"settle_balance", "Auditor", "reconcile", "connect"} <= names(repo)
    assert parsed_here == []  # every file came from the cache the child wrote
    assert ranked == []  # and the ranks the child stored in it
    assert repo.map.index().file_rank.keys() == set(FILES)
    assert notices == []


async def test_a_small_build_runs_here(workspace, parsed_here):
    repo, _notices = await built(workspace, child_files=len(FILES) + 1)
    assert {"settle_balance", "connect"} <= names(repo)
    assert sorted(parsed_here) == sorted(FILES)


async def test_the_child_redacts_the_secrets_the_session_redacts(workspace):
    STORE.load({"ANTHROPIC_API_KEY": KEY})
    try:
        await built(workspace)
    finally:
        STORE.clear()
    with contextlib.closing(sqlite3.connect(cache_of(workspace))) as connection:
        rows = b"".join(data + (zlib.decompress(literals) if literals else b"")  # as stored
                        for data, literals in connection.execute(
                            "SELECT data, literals FROM files"))
    assert b"bad token " in rows and b"refused" in rows
    assert KEY.encode() not in rows and KEY[:20].encode() not in rows


@pytest.mark.parametrize(("command", "said"), [
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "was killed (signal 9)"),
    ("raise SystemExit(5)", "failed (exit status 5)"),
    ("print('progress 1 3')", "ended before it finished"),
])
async def test_a_child_that_dies_is_said_and_the_map_is_built_here(
        workspace, parsed_here, monkeypatch, command, said):
    monkeypatch.setattr(map_child, "RUN", command)
    repo, notices = await built(workspace)
    assert {"settle_balance", "Auditor", "connect"} <= names(repo)
    assert sorted(parsed_here) == sorted(FILES)
    assert len(notices) == 1 and said in notices[0]
    assert "building it in this process instead" in notices[0]
    assert "Traceback" not in notices[0]


async def test_a_child_that_cannot_start_is_said(workspace, monkeypatch):
    monkeypatch.setattr(sys, "executable", str(workspace / "no-such-python"))
    repo, notices = await built(workspace)
    assert {"settle_balance", "connect"} <= names(repo)
    assert len(notices) == 1 and "could not start" in notices[0]


async def test_what_a_killed_child_wrote_is_kept(workspace, monkeypatch, parsed_here):
    await built(workspace)  # the child wrote every file
    (workspace / "src" / "more.py").write_text("def more_work():\n    return 1\n")
    monkeypatch.setattr(map_child, "RUN", "import os, signal; os.kill(os.getpid(), 9)")
    parsed_here.clear()
    repo, notices = await built(workspace)
    assert "more_work" in names(repo) and "settle_balance" in names(repo)
    assert parsed_here == ["src/more.py"]  # only the file the cache did not hold
    assert len(notices) == 1


@pytest.mark.parametrize("planted", ["fifo", "garbage"])
async def test_a_fifo_or_garbage_in_the_cache_s_place_is_replaced(workspace, planted,
                                                                   parsed_here):
    cache_path = cache_of(workspace)
    cache_path.parent.mkdir(parents=True)
    if planted == "fifo":
        os.mkfifo(cache_path)
    else:
        cache_path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 8)
    repo, notices = await built(workspace)
    assert {"settle_balance", "Auditor", "connect"} <= names(repo)
    assert parsed_here == [] and notices == []  # the child built it and wrote a new cache
    assert cache_path.is_file() and not cache_path.is_fifo()


@pytest.mark.parametrize("planted", ["json.py", "swetui/__init__.py"])
async def test_a_module_planted_in_the_workspace_is_not_run_by_the_child(
        workspace, parsed_here, planted, monkeypatch):
    """The child's `python -c` would put its working folder (the workspace) first on the
    module path: a workspace from a tarball with a `json.py` at its top ran that file,
    outside the sandbox, when swetui opened it (found attacking)."""
    ran = workspace.parent / f"ran-{planted.replace('/', '-')}"
    (workspace / planted).parent.mkdir(exist_ok=True)
    (workspace / planted).write_text(f"open({str(ran)!r}, 'w').close()\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join((".", "", os.environ.get("PYTHONPATH", ""))))
    repo, notices = await built(workspace)
    assert not ran.exists()
    assert {"settle_balance", "connect"} <= names(repo)
    assert parsed_here == [] and notices == []  # the child still built the map


async def test_a_module_planted_where_pythonpath_points_in_the_workspace_is_not_run(
        workspace, parsed_here, monkeypatch):
    """`export PYTHONPATH=$PWD/src`: a confined command can write `src/json.py`, and the
    next child imported it before the standard library's, unconfined (found attacking)."""
    ran = workspace.parent / "ran-src-json"
    (workspace / "src").mkdir(exist_ok=True)
    (workspace / "src" / "json.py").write_text(f"open({str(ran)!r}, 'w').close()\n")
    monkeypatch.setenv("PYTHONPATH", str(workspace / "src"))
    repo, notices = await built(workspace)
    assert not ran.exists()
    assert {"settle_balance", "connect"} <= names(repo)
    assert parsed_here == [] and notices == []  # the child still built the map

