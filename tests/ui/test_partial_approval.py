"""Deciding an edit reads right: hunks are counted from 1 as the user sees them, a partial
apply says which hunks went in, the "waiting" line becomes the decision, and the focus goes
somewhere useful when the queue empties."""

from __future__ import annotations

from pathlib import Path

from swetui.ui.screens.main import WorkspaceScreen
from swetui.ui.widgets.transcript_answer import AnswerBlock
from swetui.ui.widgets.transcript_entries import NoticeLine
from tests.ui.waits import settle, submit, until, wait_idle

LINES = "".join(f"line {n}\n" for n in range(1, 13))
"""Twelve lines: a change to the first and the last is two hunks (three lines of context)."""


def _notices(screen: WorkspaceScreen) -> str:
    return "\n".join(str(line.render()) for line in screen.transcript.query(NoticeLine))


async def _propose_two_hunks(pilot, app, demo: Path) -> WorkspaceScreen:
    (demo / "twelve.txt").write_text(LINES)
    old = LINES.rstrip("\n")
    new = old.replace("line 1\n", "LINE 1\n").replace("line 12", "LINE 12")
    await submit(pilot, f'replace "{old}" with "{new}" in twelve.txt')
    screen: WorkspaceScreen = app.screen
    await until(pilot, lambda: screen.header.pending == 1, "the edit is pending")
    assert len(screen.approvals.actions[0].hunks) == 2
    return screen


async def test_keeping_one_hunk_of_two_reads_right_everywhere(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await _propose_two_hunks(pilot, app, demo)
        assert "Waiting for approval" in _notices(screen)
        await pilot.press("f5", "]", "space", "y")  # reject the second hunk, keep the first
        await wait_idle(app, pilot)
        assert (demo / "twelve.txt").read_text() == LINES.replace("line 1\n", "LINE 1\n")
        notices = _notices(screen)
        assert "kept hunk 1 of 2" in notices, notices
        assert "hunks 0" not in notices
        # The waiting line became the decision: nothing still says it waits.
        assert "Waiting for approval" not in notices, notices
        answer = screen.transcript.query(AnswerBlock).last().source
        assert "Applied the edit" not in answer, answer
        assert "hunk 1 of 2" in answer and "hunk 2 of 2" in answer, answer


async def test_a_whole_approval_replaces_the_waiting_line(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await submit(pilot, 'replace "hello" with "world" in a.txt')
        screen: WorkspaceScreen = app.screen
        await until(pilot, lambda: screen.header.pending == 1, "the edit is pending")
        await pilot.press("f5", "y")
        await wait_idle(app, pilot)
        notices = _notices(screen)
        assert "Approved edit a.txt" in notices and "hunk" not in notices, notices
        assert "Waiting for approval" not in notices, notices
        answer = screen.transcript.query(AnswerBlock).last().source
        assert "Applied the edit to `a.txt`" in answer


async def test_focus_leaves_the_emptied_queue_for_the_prompt(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, 'replace "hello" with "world" in a.txt')
        screen: WorkspaceScreen = app.screen
        await until(pilot, lambda: screen.header.pending == 1, "the edit is pending")
        await pilot.press("f5")
        await until(pilot, lambda: screen.approvals.option_list.has_focus, "the queue focused")
        await pilot.press("y")
        await wait_idle(app, pilot)
        await until(pilot, lambda: screen.prompt.input.has_focus,
                    "the prompt has the focus once nothing is left to approve")
        await settle(pilot)
        # At 80×24 the queue took the right column; the transcript is back.
        assert screen.transcript.region.width > 40
