"""edit_file and write_file: exact matches, atomic writes that keep line endings and modes,
stale-file refusal and confinement."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from swetui.agent.toolbox import Toolbox
from tests.agent.conftest import tool_call, wait_pending


async def test_edit_applies_in_auto_edit_mode(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto-edit")
    result = await toolbox.run(tool_call("edit_file", path="src/app.py",
                                         old="print('hello')", new="print('hi')\n    x = 1"))
    assert not result.is_error, result.content
    assert result.summary == "edit applied to src/app.py (+2 −1)"
    assert "x = 1" in (ws_root / "src/app.py").read_text()
    assert not list(ws_root.glob("src/.*tmp")), "temp file left behind"


async def test_edit_no_match_tells_the_model_what_to_do(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto")
    result = await toolbox.run(tool_call("edit_file", path="src/app.py",
                                         old="print('goodbye')", new="x"))
    assert result.is_error
    assert "old text not found in src/app.py" in result.content
    assert "Read the file again" in result.content
    indented = await toolbox.run(tool_call("edit_file", path="src/app.py",
                                           old="  print('hello')  \n\n", new="x"))
    assert "Ignoring leading/trailing whitespace it matches at line 5" in indented.content


async def test_edit_multiple_matches_lists_the_lines(make_toolbox, ws_root: Path):
    (ws_root / "dup.py").write_text("x = 1\ny = 2\nx = 1\n")
    result = await make_toolbox("auto").run(
        tool_call("edit_file", path="dup.py", old="x = 1", new="x = 3"))
    assert result.is_error
    assert "occurs 2 times in dup.py (lines 1, 3)" in result.content
    assert "Include more surrounding lines" in result.content
    assert (ws_root / "dup.py").read_text() == "x = 1\ny = 2\nx = 1\n"


async def test_edit_of_a_missing_file_points_to_write_file(make_toolbox):
    result = await make_toolbox("auto").run(
        tool_call("edit_file", path="nope.py", old="a", new="b"))
    assert result.is_error and "write_file" in result.content


async def test_crlf_file_stays_crlf(make_toolbox, ws_root: Path):
    (ws_root / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("read_file", path="win.txt"))
    result = await toolbox.run(tool_call("edit_file", path="win.txt", old="one\ntwo",
                                         new="one\nTWO\nextra"))
    assert not result.is_error, result.content
    assert (ws_root / "win.txt").read_bytes() == b"one\r\nTWO\r\nextra\r\nthree\r\n"


async def test_file_mode_is_kept(make_toolbox, ws_root: Path):
    script = ws_root / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o751)
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("edit_file", path="run.sh", old="old", new="new"))
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    await toolbox.run(tool_call("write_file", path="run.sh", content="#!/bin/sh\necho w\n"))
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    assert script.read_text() == "#!/bin/sh\necho w\n"


async def test_stale_file_is_refused_until_read_again(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("read_file", path="src/app.py"))
    (ws_root / "src/app.py").write_text("import os\n# changed by the user\n")
    result = await toolbox.run(tool_call("edit_file", path="src/app.py", old="import os",
                                         new="import sys"))
    assert result.is_error and "changed on disk since you last read it" in result.content
    assert "changed by the user" in (ws_root / "src/app.py").read_text()
    overwrite = await toolbox.run(tool_call("write_file", path="src/app.py", content="x\n"))
    assert overwrite.is_error and "changed on disk" in overwrite.content
    await toolbox.run(tool_call("read_file", path="src/app.py"))
    again = await toolbox.run(tool_call("edit_file", path="src/app.py", old="import os",
                                        new="import sys"))
    assert not again.is_error


async def test_own_writes_do_not_make_a_file_stale(make_toolbox, ws_root: Path):
    toolbox = make_toolbox("auto")
    await toolbox.run(tool_call("read_file", path="src/app.py"))
    first = await toolbox.run(tool_call("edit_file", path="src/app.py", old="import os",
                                        new="import sys"))
    second = await toolbox.run(tool_call("edit_file", path="src/app.py", old="return 0",
                                         new="return 1"))
    assert not first.is_error and not second.is_error


async def test_never_read_file_can_be_edited(make_toolbox, ws_root: Path):
    result = await make_toolbox("auto").run(
        tool_call("edit_file", path="README.md", old="Some text.", new="Other text."))
    assert not result.is_error


async def test_file_changed_while_waiting_for_approval_is_not_clobbered(toolbox: Toolbox,
                                                                        ws_root: Path):
    task = asyncio.create_task(toolbox.run(
        tool_call("edit_file", path="src/app.py", old="return 0", new="return 2")))
    [action] = await wait_pending(toolbox.queue)
    (ws_root / "src/app.py").write_text("user rewrote everything\n")
    toolbox.queue.approve(action.id)
    result = await task
    assert result.is_error and "changed on disk while the change waited" in result.content
    assert (ws_root / "src/app.py").read_text() == "user rewrote everything\n"


async def test_write_file_creates_parents_atomically(make_toolbox, ws_root: Path):
    result = await make_toolbox("auto").run(
        tool_call("write_file", path="docs/guide/intro.md", content="# Intro\n"))
    assert not result.is_error
    assert result.summary == "created docs/guide/intro.md (+1 −0)"
    assert (ws_root / "docs/guide/intro.md").read_text() == "# Intro\n"
    mode = stat.S_IMODE((ws_root / "docs/guide/intro.md").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


async def test_write_same_content_is_a_no_op(make_toolbox):
    result = await make_toolbox("ask").run(
        tool_call("write_file", path="README.md", content="# Project\n\nSome text.\n"))
    assert not result.is_error and result.content.startswith("No change")


async def test_write_through_symlink_outside_is_refused(make_toolbox, ws_root: Path):
    outside = ws_root.parent / "target.txt"
    outside.write_text("keep me")
    (ws_root / "escape.txt").symlink_to(outside)
    (ws_root / "dangling").symlink_to(ws_root.parent / "new_outside.txt")
    toolbox = make_toolbox("auto")
    for path in ("escape.txt", "dangling", "../target.txt", str(outside)):
        result = await toolbox.run(tool_call("write_file", path=path, content="pwned"))
        assert result.is_error and "outside the workspace" in result.content, path
    edit = await toolbox.run(tool_call("edit_file", path="escape.txt", old="keep", new="x"))
    assert edit.is_error
    assert outside.read_text() == "keep me"
    assert not (ws_root.parent / "new_outside.txt").exists()


async def test_editing_binary_and_non_utf8_files_is_refused(make_toolbox, ws_root: Path):
    (ws_root / "data.bin").write_bytes(b"abc\x00def")
    (ws_root / "latin.txt").write_bytes("café".encode("latin-1"))
    toolbox = make_toolbox("auto")
    binary = await toolbox.run(tool_call("edit_file", path="data.bin", old="abc", new="x"))
    assert binary.is_error and "binary" in binary.content
    latin = await toolbox.run(tool_call("edit_file", path="latin.txt", old="caf", new="x"))
    assert latin.is_error and "not valid UTF-8" in latin.content
    assert (ws_root / "latin.txt").read_bytes() == "café".encode("latin-1")
