"""Undo: checkpoints of applied edits and writes, persisted under .swetui/checkpoints/."""

from __future__ import annotations

import stat
from pathlib import Path

from swetui.agent.events import EditUndone
from swetui.agent.tools.checkpoints import Checkpoints
from tests.agent.conftest import Recorder, tool_call


async def test_undo_an_edit_restores_content_and_mode(make_toolbox, ws_root: Path,
                                                      recorder: Recorder):
    app = ws_root / "src/app.py"
    app.chmod(0o700)
    before = app.read_bytes()
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("edit_file", path="src/app.py", old="return 0", new="return 9"))
    assert list((ws_root / ".swetui/checkpoints").glob("*.json"))
    message = toolbox.undo()
    assert message == "Undid the agent's change to src/app.py: the previous content is back."
    assert app.read_bytes() == before and stat.S_IMODE(app.stat().st_mode) == 0o700
    assert recorder.of(EditUndone)[0].path == "src/app.py"
    assert toolbox.undo().startswith("Nothing to undo")


async def test_undo_a_created_file_removes_it_and_its_new_folders(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("write_file", path="new/deep/file.txt", content="hi\n"))
    assert (ws_root / "new/deep/file.txt").exists()
    assert "file was removed" in toolbox.undo()
    assert not (ws_root / "new").exists()


async def test_undo_goes_back_step_by_step(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("edit_file", path="README.md", old="Some", new="More"))
    await toolbox.run(tool_call("edit_file", path="README.md", old="More", new="Most"))
    toolbox.undo()
    assert "More text." in (ws_root / "README.md").read_text()
    toolbox.undo()
    assert "Some text." in (ws_root / "README.md").read_text()


async def test_undo_refuses_to_clobber_later_user_changes(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("edit_file", path="README.md", old="Some", new="More"))
    (ws_root / "README.md").write_text("the user's own work\n")
    assert "changed after the agent wrote it" in toolbox.undo()
    assert (ws_root / "README.md").read_text() == "the user's own work\n"
    assert "previous content is back" in toolbox.undo(force=True)


async def test_undo_updates_the_read_ledger(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("read_file", path="README.md"))
    await toolbox.run(tool_call("edit_file", path="README.md", old="Some", new="More"))
    toolbox.undo()
    # The restored file is what the agent knows now: editing it is not refused as stale.
    result = await toolbox.run(tool_call("edit_file", path="README.md", old="Some", new="Any"))
    assert not result.is_error, result.content


async def test_checkpoints_survive_a_restart(make_toolbox, ws_root: Path):
    await make_toolbox("auto").run(tool_call("write_file", path="a.txt", content="x\n"))
    assert "file was removed" in make_toolbox("auto").undo()
    assert not (ws_root / "a.txt").exists()


async def test_checkpoints_in_memory_without_a_writable_workspace(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto", checkpoints=Checkpoints(ws_root, persist=False))
    await toolbox.run(tool_call("edit_file", path="README.md", old="Some", new="More"))
    assert not (ws_root / ".swetui").exists()
    assert "previous content is back" in toolbox.undo()


async def test_in_memory_fallback_when_swetui_is_not_writable(make_toolbox, ws_root: Path):
    (ws_root / ".swetui").write_text("not a directory")  # makes .swetui/checkpoints unusable
    toolbox = make_toolbox("auto")
    result = await toolbox.run(tool_call("edit_file", path="README.md", old="Some", new="More"))
    assert not result.is_error
    assert not toolbox.checkpoints.persistent
    assert "previous content is back" in toolbox.undo()
