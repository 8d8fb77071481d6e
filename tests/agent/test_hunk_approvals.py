"""Approving some hunks of an edit through the real toolbox: the file read back from disk is
the old file with exactly the kept hunks applied (issue 9: a 100-line file became 17 lines)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from swetui.agent.toolbox import Toolbox
from tests.agent.conftest import tool_call, wait_pending

OLD = [f"line {n}" for n in range(1, 101)]


def changed(lines: list[str], *at: int) -> list[str]:
    """`lines` with the given 1-based line numbers upper-cased."""
    return [line.upper() if n in at else line for n, line in enumerate(lines, 1)]


async def approve_hunks(toolbox: Toolbox, path: str, content: str, hunks: list[int]):
    task = asyncio.create_task(toolbox.run(tool_call("write_file", path=path,
                                                     content=content)))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.approve(action.id, hunks=hunks)
    return action, await task


@pytest.mark.parametrize(("hunks", "kept_lines"), [([0], (50,)), ([1], (60,)),
                                                   ([0, 1], (50, 60))])
async def test_kept_hunks_of_a_100_line_file_and_nothing_else_reach_the_disk(
        toolbox: Toolbox, ws_root: Path, hunks: list[int], kept_lines: tuple[int, ...]):
    (ws_root / "long.txt").write_text("\n".join(OLD) + "\n")
    action, result = await approve_hunks(toolbox, "long.txt",
                                         "\n".join(changed(OLD, 50, 60)) + "\n", hunks)
    assert [h.header for h in action.hunks] == ["@@ -47,7 +47,7 @@", "@@ -57,7 +57,7 @@"]
    assert (ws_root / "long.txt").read_text() == "\n".join(changed(OLD, *kept_lines)) + "\n"
    assert not result.is_error
    count = len(kept_lines)
    assert f"(+{count} −{count})" in result.content  # what the model is told was written
    assert result.data["hunks_kept"] == hunks
    assert ("partly" in result.content) == (len(hunks) < 2)


async def test_kept_hunk_of_a_crlf_file_without_final_newline_keeps_its_bytes(
        toolbox: Toolbox, ws_root: Path):
    (ws_root / "dos.txt").write_bytes("\r\n".join(OLD).encode())
    # The model writes '\n' lines; the file keeps its '\r\n' and its missing final newline.
    new = "\n".join(changed(OLD, 10, 50, 100))
    action, result = await approve_hunks(toolbox, "dos.txt", new, [0, 2])
    assert len(action.hunks) == 3 and not result.is_error
    assert (ws_root / "dos.txt").read_bytes() == "\r\n".join(changed(OLD, 10, 100)).encode()


async def test_hunks_that_no_longer_match_the_change_are_refused(make_toolbox, ws_root: Path):
    # A pending approval restored from a session log whose hunks were computed differently
    # (another swetui version): an index would name another change, so nothing is written.
    (ws_root / "long.txt").write_text("\n".join(OLD) + "\n")
    toolbox = make_toolbox("ask")
    action = toolbox.prepare(tool_call("write_file", path="long.txt",
                                       content="\n".join(changed(OLD, 50, 60)) + "\n"))
    first, second = action.hunks
    merged = first.model_copy(update={"old_count": 17, "new_count": 17})
    stale = action.model_copy(update={"hunks": [merged, second.model_copy(
        update={"old_start": 99})]})
    toolbox.queue.restore([stale])
    toolbox.queue.approve(stale.id, hunks=[0])
    result = await toolbox.resume(stale)
    assert result.is_error and "Nothing was changed in long.txt" in result.content
    assert (ws_root / "long.txt").read_text() == "\n".join(OLD) + "\n"
