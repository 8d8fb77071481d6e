"""End to end: `swetui` in a real terminal (tmux), driven with keys as a person would."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_request_approve_edit_and_check_disk(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    target = workspace / "a.txt"
    target.write_text("hello there\n")
    terminal = Terminal("swetui", tmp_path)
    try:
        terminal.start_swetui(workspace, (120, 36))
        terminal.wait_for("type a request below")
        terminal.type('replace "hello" with "world" in a.txt')
        terminal.keys("Enter")
        terminal.wait_for("Waiting for approval")
        assert target.read_text() == "hello there\n"  # nothing applied before approval
        terminal.keys("F5")
        terminal.wait_for("n Deny")  # the approval pane's keys show: it has the focus
        terminal.keys("y")
        terminal.wait_for("Approved edit a.txt")
        terminal.wait_for("Done in")  # the edit is applied before the turn goes on
        assert target.read_text() == "world there\n"
        terminal.keys("C-q")
        assert terminal.wait_closed()
    finally:
        terminal.stop()
