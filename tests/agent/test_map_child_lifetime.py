"""The map's build process never outlives its use: a child that hangs (a file that stalls
the parser) is stopped after `map_child.STALL` seconds without progress, said in one line,
and the session builds the map itself.

The hanging child here is the real child (`map_child.run`: its progress lines, its watch on
the session's end of standard input) with its parse of one file made to wait for ever."""

from __future__ import annotations

import os
import select
import textwrap
from pathlib import Path

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
