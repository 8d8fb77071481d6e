"""The small files git keeps paths in (a worktree's `.git` file, its git directory's `gitdir`
and `commondir`) are read before every confined command to grant the repository's git
directory. They were opened with a blocking `open`: a FIFO planted as `gitdir` (a workspace
from a tarball can hold one, with a `.git` file naming it; so can a folder above the
workspace) held the bash tool before the command started, for ever (no time limit covers
that step). They are read without waiting now, and the command runs."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest

from swetui.agent.sandbox import Sandbox, probe
from swetui.agent.tools.shell import run_command
from tests.agent.test_sandbox_reads_outside import worktree
from tests.waiting import WAIT

confinable = pytest.mark.skipif(not probe().available,
                                reason=f"no kernel sandbox here: {probe().detail}")


async def run_beside(fifos: list[Path], root: Path, command: str) -> str:
    """What the bash tool shows for `command` in `root`'s sandbox; should it wait on one of
    `fifos`, after `WAIT` (a bound on a wedged test, not a figure) a writer lets it go."""
    sandbox = Sandbox(root, cover=())
    running = asyncio.ensure_future(run_command(command, str(root), WAIT, sandbox=sandbox))
    try:
        done, _ = await asyncio.wait({running}, timeout=WAIT)
        stuck = not done
        while not running.done():  # let the reading thread go
            for fifo in fifos:
                with contextlib.suppress(OSError):  # no reader at this moment
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            await asyncio.wait({running}, timeout=0.1)
        assert not stuck, f"the command waited on a FIFO among {fifos}"
        return running.result().content
    finally:
        sandbox.close()


@confinable
@pytest.mark.parametrize("planted", ["gitdir", "commondir"])
async def test_a_fifo_a_worktrees_git_file_leads_to_does_not_hold_commands(
        tmp_path: Path, planted: str) -> None:
    root = tmp_path / "ws"
    (root / "meta").mkdir(parents=True)
    (root / ".git").write_text("gitdir: meta\n")
    if planted == "commondir":  # names the workspace back, as git writes it
        (root / "meta" / "gitdir").write_text(f"{root / '.git'}\n")
    os.mkfifo(root / "meta" / planted)
    shown = await run_beside([root / "meta" / planted], root, "echo ran")
    assert "ran\n" in shown and "[exit code 0]" in shown, shown


@confinable
async def test_a_fifo_above_the_workspace_does_not_hold_commands(tmp_path: Path) -> None:
    """The workspace is a folder of something with a `.git` file (an unpacked archive)."""
    top = tmp_path / "unpacked"
    root = top / "pkg"
    root.mkdir(parents=True)
    (top / "meta").mkdir()
    (top / ".git").write_text("gitdir: meta\n")
    os.mkfifo(top / "meta" / "gitdir")
    shown = await run_beside([top / "meta" / "gitdir"], root, "echo ran")
    assert "ran\n" in shown and "[exit code 0]" in shown, shown


@confinable
async def test_git_still_works_in_a_real_worktree(tmp_path: Path) -> None:
    """The same reading grants a real worktree's git directories (and no more)."""
    _main, tree = worktree(tmp_path)
    shown = await run_beside([], tree, "git log --oneline; git status --short; echo ran")
    assert "first" in shown and "ran\n" in shown and "[exit code 0]" in shown, shown


@confinable
async def test_a_planted_commondir_opens_no_other_folder(tmp_path: Path) -> None:
    """Found attacking the change: the `.git` file, its git directory and the `gitdir` file
    naming the workspace back can all be planted in the workspace (an unpacked archive);
    the `commondir` beside them then opened any folder it named to reading. git keeps a
    worktree's folder in `<common>/worktrees/`, so that is the only common folder granted."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("PLANTED-other-project-secret\n")
    root = tmp_path / "ws"
    (root / "meta").mkdir(parents=True)
    (root / ".git").write_text("gitdir: meta\n")
    (root / "meta" / "gitdir").write_text(f"{root / '.git'}\n")
    (root / "meta" / "commondir").write_text(f"{other}\n")
    shown = await run_beside([], root, f"cat {other}/notes.txt; echo ran")
    assert "PLANTED-other-project-secret" not in shown and "ran\n" in shown, shown
