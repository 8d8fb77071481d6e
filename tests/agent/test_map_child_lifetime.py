"""The map's build process never outlives its use: a child that hangs (a file that stalls
the parser) is stopped after `map_child.STALL` seconds without progress, said in one line,
and the session builds the map itself; a child whose session dies (kill -9) ends too.

The hanging child here is the real child (`map_child.run`: its progress lines, its watch on
the session's end of standard input) with its parse of one file made to wait for ever, or
its ranking made to work (or to wait) past the limit: a long step after the parse is not
taken for a stuck child, a blocked one still is."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from swetui.agent import map_child
from tests.agent.test_map_child import FILES, built, names, parsed_here, workspace

__all__ = ["parsed_here", "workspace"]  # fixtures shared with test_map_child

STUCK_ON = "src/client.py"
WAIT = 60.0
"""Seconds at most a test waits for a process it expects (a safety bound, not a figure)."""


STALL = 8.0
"""The time limit the first test sets: past the child's start (its imports) under load."""


def hanging(pid_file: Path) -> str:
    """The child's command: the real child, whose parse of STUCK_ON never returns (as a
    file that hangs the parser); there it writes its process id to `pid_file`."""
    return textwrap.dedent(f"""\
        import os, sys, threading
        from swetui.agent import map_child
        from swetui.engine.symbols.symbol_map import SymbolMap
        parse = SymbolMap._parse
        def stuck(self, rel, *args):
            if rel == {STUCK_ON!r}:
                with open({str(pid_file)!r} + ".part", "w") as out:
                    out.write(str(os.getpid()))
                os.rename({str(pid_file)!r} + ".part", {str(pid_file)!r})
                threading.Event().wait()
            return parse(self, rel, *args)
        SymbolMap._parse = stuck
        map_child.run(sys.argv[1:])
        """)


def ended(pid: int, within: float = WAIT) -> bool:
    """Whether process `pid` ends (or has ended) within `within` seconds: waits on its
    pidfd, which turns readable when it exits, whoever its parent is."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([handle], [], [], within)[0])
    finally:
        os.close(handle)


def child_pid(pid_file: Path, parent: subprocess.Popen[bytes]) -> int:
    """The child's process id once it is stuck (the parent, when given, still up)."""
    deadline = time.monotonic() + WAIT
    while not pid_file.exists():
        assert parent.poll() is None, "the session ended first"
        assert time.monotonic() < deadline, "the child never reached the file that hangs"
        time.sleep(0.02)
    return int(pid_file.read_text())


async def test_a_child_that_makes_no_progress_is_stopped_and_the_map_built_here(
        workspace, parsed_here, monkeypatch, tmp_path_factory):
    pid_file = tmp_path_factory.mktemp("child") / "pid"
    monkeypatch.setattr(map_child, "RUN", hanging(pid_file))
    repo, notices = await built(workspace, stall=STALL)
    assert {"settle_balance", "Auditor", "connect"} <= names(repo)
    assert sorted(parsed_here) == sorted(FILES)
    assert len(notices) == 1 and "\n" not in notices[0]
    assert f"made no progress for {STALL:.0f} s and was stopped" in notices[0]
    assert "building it in this process instead" in notices[0]
    assert pid_file.exists(), "the child was stopped before it reached the file that hangs"
    assert ended(int(pid_file.read_text()), within=0.0)  # killed and reaped before the build


SESSION = textwrap.dedent("""\
    import asyncio, sys
    from pathlib import Path
    from swetui.agent import map_child
    from swetui.agent.repository_map import RepositoryMap
    from swetui.engine.context import ContextEngine
    map_child.RUN = sys.argv[2]
    async def main():
        root = Path(sys.argv[1])
        repo = RepositoryMap(root, ContextEngine(), exclude=None,
                             cache_path=root / ".swetui" / "symbols" / "map.sqlite")
        repo.child_files = 1
        tasks = []
        repo.build(lambda work: tasks.append(asyncio.get_running_loop().create_task(work)))
        await asyncio.Event().wait()
    asyncio.run(main())
    """)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on a pidfd (Linux)")
def test_the_child_ends_when_the_session_is_killed(workspace, tmp_path_factory):
    pid_file = tmp_path_factory.mktemp("child") / "pid"
    session = subprocess.Popen([sys.executable, "-c", SESSION, str(workspace),
                                hanging(pid_file)])
    try:
        child = child_pid(pid_file, session)
        assert not ended(child, within=0.0)  # building (stuck on a file) while the session runs
    finally:
        session.send_signal(signal.SIGKILL)
        session.wait()
    assert ended(child), "the map's build process outlived the session killed with -9"


def ranking(step: str) -> str:
    """The child's command: the real child, whose ranking of the parsed files (the look-up
    tables' build) first runs `step`, Python source using `stall`."""
    return textwrap.dedent(f"""\
        import sys, threading, time
        from swetui.agent import map_child
        from swetui.engine.symbols import symbol_map
        build_index = symbol_map.build_index
        stall = {STALL!r}
        def slow(*args):
            {step}
            return build_index(*args)
        symbol_map.build_index = slow
        map_child.run(sys.argv[1:])
        """)


async def test_a_ranking_longer_than_the_limit_is_not_taken_for_a_stuck_child(
        workspace, parsed_here, monkeypatch):
    # the ranking works (uses CPU) for one and a half times the limit, saying nothing itself:
    # a little work every 50 ms, so that every beat sees CPU used, without holding a core for
    # the whole 12 s (a spin did: 12 s of the suite's CPU)
    monkeypatch.setattr(map_child, "RUN", ranking(
        "until = time.monotonic() + 1.5 * stall\n"
        "            while time.monotonic() < until:\n"
        "                sum(range(20_000))\n"
        "                threading.Event().wait(0.05)"))
    repo, notices = await built(workspace, stall=STALL)
    assert notices == []
    assert {"settle_balance", "Auditor", "connect"} <= names(repo)
    assert parsed_here == []  # the child's work kept: nothing parsed in the session


async def test_a_child_blocked_after_parsing_is_still_stopped(
        workspace, monkeypatch):
    # the ranking waits for ever without using CPU (as on a lock): no progress, stopped
    monkeypatch.setattr(map_child, "RUN", ranking("threading.Event().wait()"))
    repo, notices = await built(workspace, stall=STALL)
    assert len(notices) == 1
    assert f"made no progress for {STALL:.0f} s and was stopped" in notices[0]
    assert {"settle_balance", "Auditor", "connect"} <= names(repo)
