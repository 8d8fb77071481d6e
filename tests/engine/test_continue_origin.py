"""The screen's --continue opens the newest session started on screen, not a newer headless
`swetui run` (a script or CI job that ran meanwhile); headless runs keep taking the newest."""

import os
from pathlib import Path

from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.commands.sessions import show_sessions
from swetui.config import Settings
from swetui.engine.workspace import open_workspace


def started(root: Path, origin: str | None, text: str, when: int) -> str:
    """A saved session of one turn, started on `origin`, last written at `when`."""
    ws = open_workspace(root, Settings(), TOOL_SCHEMAS, origin=origin)
    ws.record("turn_started", {"turn": 1, "text": text})
    ws.close()
    os.utime(ws.store.path, (when, when))
    return ws.session_id


def continued(root: Path, origin: str | None) -> tuple[str, list[str]]:
    ws = open_workspace(root, Settings(), TOOL_SCHEMAS, continue_last=True, origin=origin)
    ws.close()
    return ws.session_id, ws.notices


def test_the_screen_continues_its_own_session_and_names_the_newer_run(workspace):
    screen = started(workspace, "screen", "fix the gauge", 1_000)
    run = started(workspace, "run", "nightly lint", 2_000)
    opened, notices = continued(workspace, "screen")
    assert opened == screen
    notice = next(n for n in notices if n.startswith("continuing session"))
    assert "“fix the gauge”" in notice and f"a newer headless run is {run}" in notice


def test_a_headless_run_continues_the_newest_session_of_any_origin(workspace):
    started(workspace, "screen", "fix the gauge", 1_000)
    run = started(workspace, "run", "nightly lint", 2_000)
    assert continued(workspace, "run")[0] == run
    assert continued(workspace, None)[0] == run


def test_a_session_logged_before_origins_were_recorded_counts_as_the_screen_s(workspace):
    old = started(workspace, None, "from an older swetui", 1_000)
    started(workspace, "run", "nightly lint", 2_000)
    assert continued(workspace, "screen")[0] == old
    first = (workspace / ".swetui" / "sessions" / f"{old}.jsonl").read_text().splitlines()[0]
    assert '"turn_started"' in first  # nothing was written in front of the old log


def test_with_only_headless_runs_the_screen_continues_the_newest(workspace):
    started(workspace, "run", "first run", 1_000)
    newest = started(workspace, "run", "second run", 2_000)
    opened, notices = continued(workspace, "screen")
    assert opened == newest
    assert any("(the newest;" in notice for notice in notices)


def test_a_continued_session_keeps_its_origin_line_once(workspace):
    screen = started(workspace, "screen", "fix the gauge", 1_000)
    ws = open_workspace(workspace, Settings(), TOOL_SCHEMAS, continue_last=True, origin="run")
    ws.record("turn_started", {"turn": 2, "text": "more"})
    ws.close()
    lines = (workspace / ".swetui" / "sessions" / f"{screen}.jsonl").read_text().splitlines()
    assert sum('"session_origin"' in line for line in lines) == 1
    assert '"origin":"screen"' in lines[0]


def test_swetui_sessions_marks_headless_runs(workspace, capsys):
    started(workspace, "screen", "fix the gauge", 1_000)
    started(workspace, "run", "nightly lint", 2_000)
    assert show_sessions(workspace) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("(run) nightly lint") and lines[1].endswith("  fix the gauge")
