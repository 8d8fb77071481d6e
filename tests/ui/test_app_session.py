"""The palette reaches every pane's actions; sessions reopen; opening errors are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.engine.items import ItemState
from swetui.options import LaunchOptions
from swetui.ui.app import run_workspace
from swetui.ui.palette import ApprovalCommands, ContextCommands, WorkspaceCommands
from swetui.ui.widgets.transcript_entries import ActionEntry, UserMessage
from tests.trusted import trust_workspace
from tests.ui.waits import palette, settle, submit, until, wait_idle


async def test_palette_switches_mode(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await palette(pilot, "auto-edit", expect="auto-edit")
        await until(pilot, lambda: app.screen.header.mode == "auto-edit",
                    "the header shows the new mode")
        assert app.session.mode == "auto-edit"


async def test_palette_lists_every_pane_action(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.screen
        context = [name for name, _, _ in ContextCommands(screen).commands()]
        assert any("Pin" in name for name in context)
        assert any("Drop" in name for name in context)
        approvals = [name for name, _, _ in ApprovalCommands(screen).commands()]
        assert any("Approve all" in name for name in approvals)
        workspace = [name for name, _, _ in WorkspaceCommands(screen).commands()]
        assert any(name.startswith("/compact") for name in workspace)
        assert any("Undo the last compaction" in name for name in workspace)
        await pilot.pause()


async def test_palette_drops_an_item_in_the_inspector(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("f4")
        await pilot.press("down")
        await until(pilot, lambda: app.screen.inspector.cursor_item is not None,
                    "an item is under the inspector's cursor")
        assert ItemState.DROPPED not in {item.state for item in app.session.engine}
        await palette(pilot, "Drop/r", expect="Drop")
        await until(pilot, lambda: ItemState.DROPPED in {item.state
                                                         for item in app.session.engine},
                    "the item was dropped")


async def test_continue_reopens_transcript_and_pending_approval(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await submit(pilot, "read README.md")
        await wait_idle(app, pilot)
        await submit(pilot, 'replace "hello" with "world" in a.txt')
        await until(pilot, lambda: app.screen.header.pending == 1, "the edit is pending")
    # The process "ends" with the edit pending; a new one continues the session.
    again = make_app(continue_last=True)
    async with again.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: again.screen.header.pending == 1,
                    "the restored edit is pending")
        await settle(pilot)
        users = [str(widget.render()) for widget in again.screen.transcript.query(UserMessage)]
        assert users[:2] == ["read README.md", 'replace "hello" with "world" in a.txt']
        tools = [entry.tool for entry in again.screen.transcript.query(ActionEntry)]
        assert "read_file" in tools
        assert again.screen.header.pending == 1
        await pilot.press("f5", "y")
        await until(pilot, lambda: (demo / "a.txt").read_text() == "world there\n",
                    "the approved edit is on disk")


def test_open_error_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = run_workspace(LaunchOptions(path=tmp_path / "missing", model="offline"))
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("swetui: ") and err.count("\n") == 1
    (tmp_path / ".swetui").mkdir()
    (tmp_path / ".swetui" / "config.toml").write_text("mode = 'reckless'\n")
    trust_workspace(tmp_path)  # an untrusted file would be ignored, not an error
    assert run_workspace(LaunchOptions(path=tmp_path, model="offline")) == 2
    err = capsys.readouterr().err
    assert "config.toml" in err and "Traceback" not in err
