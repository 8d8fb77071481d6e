"""End to end at 80×24: the user reads the diff in the approval queue, then approves it."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.terminal import Terminal
from tests.e2e.test_workspace_tmux import pytestmark  # noqa: F401 (same marks)


def test_approve_an_edit_at_80x24_by_reading_its_diff(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    target = workspace / "calc.py"
    target.write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    terminal = Terminal("swetui", tmp_path)
    try:
        terminal.start_swetui(workspace, (80, 24))
        terminal.wait_for("type a request below")
        terminal.type('replace "a + b" with "a + b + 0" in calc.py')
        terminal.keys("Enter")
        terminal.wait_for("approval pending")
        terminal.keys("F5")
        # What is asked, line by line, on the 80×24 screen: the removed and the added line.
        screen = terminal.wait_for("+    return a + b + 0")
        assert "-    return a + b" in screen
        assert target.read_text().count("a + b + 0") == 0  # nothing applied before approval
        terminal.keys("y")
        terminal.wait_for("Approved edit calc.py")
        terminal.wait_for("Done in")
        assert "return a + b + 0" in target.read_text()
    finally:
        terminal.stop()
