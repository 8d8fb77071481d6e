"""The tools read regular files only: a FIFO, device, socket or a link to one is refused at
once with a message the model can act on; huge, long-lined, binary and non-UTF-8 files are
capped or refused, never read whole."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from swetui.agent.toolbox import Toolbox
from tests.agent.conftest import tool_call


@pytest.fixture
def specials(ws_root: Path) -> Iterator[Path]:
    os.mkfifo(ws_root / "p")
    os.symlink("/dev/zero", ws_root / "src" / "zero.py")  # leads outside: refused anyway
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(ws_root / "sock"))
    yield ws_root
    server.close()


async def test_read_file_refuses_a_fifo_at_once(toolbox: Toolbox, specials: Path):
    result = await toolbox.run(tool_call("read_file", path="p"))
    assert result.is_error
    assert "p is a FIFO, not a regular file; not read" in result.content
    assert result.summary == "skipped: p is a FIFO"
    sock = await toolbox.run(tool_call("read_file", path="sock"))
    assert "sock is a socket, not a regular file; not read" in sock.content


async def test_read_file_refuses_a_device_reached_through_a_link_inside(toolbox: Toolbox,
                                                                         ws_root: Path):
    os.mkfifo(ws_root / "fifo")
    os.symlink("fifo", ws_root / "link")
    result = await toolbox.run(tool_call("read_file", path="link"))
    assert result.is_error and "fifo is a FIFO" in result.content


async def test_grep_skips_special_files_and_says_so(toolbox: Toolbox, specials: Path):
    result = await toolbox.run(tool_call("grep", pattern="hello"))
    assert "src/app.py:5:" in result.content
    assert "[skipped 2 files: not regular files, not read: p (a FIFO), sock (a socket)]" \
        in result.content
    assert "skipped p (a FIFO), sock (a socket): not a regular file" in result.summary
    direct = await toolbox.run(tool_call("grep", pattern="x", path="p"))
    assert "p (a FIFO)" in direct.content


async def test_list_dir_marks_special_files(toolbox: Toolbox, specials: Path):
    result = await toolbox.run(tool_call("list_dir"))
    assert "p  [a FIFO, not a regular file: not readable]" in result.content.splitlines()


async def test_edit_and_write_refuse_a_fifo(toolbox: Toolbox, specials: Path):
    edit = await toolbox.run(tool_call("edit_file", path="p", old="a", new="b"))
    assert edit.is_error and "p is a FIFO, not a regular file" in edit.content
    write = await toolbox.run(tool_call("write_file", path="p", content="x"))
    assert write.is_error and "p is a FIFO, not a regular file" in write.content


async def test_a_five_megabyte_line_is_cut(toolbox: Toolbox, ws_root: Path):
    (ws_root / "min.js").write_bytes(b"var a=1;" * (5 << 17) + b"\nsecond\n")
    result = await toolbox.run(tool_call("read_file", path="min.js"))
    first = result.content.splitlines()[0]
    assert first.startswith("     1\tvar a=1;") and "[line cut: 5,240,8" in first
    assert len(first) < 2_100
    more = await toolbox.run(tool_call("read_file", path="min.js", offset=2))
    assert more.content.splitlines()[0] == "     2\tsecond"


def test_a_gigabyte_without_newlines_is_read_in_bounded_memory(tmp_path: Path):
    """A sparse 1 GB file with a text head: read_file shows the head and never holds the
    gigabyte (measured in a fresh process, whose peak memory is its own: VmHWM, which starts
    anew at exec, unlike ru_maxrss, which keeps the forking test worker's peak)."""
    root = tmp_path / "ws"
    root.mkdir()
    with open(root / "big.log", "wb") as handle:
        handle.write(b"start\n" * 1500)  # 9 KB of text, then a 1 GB hole of NUL bytes
        handle.truncate(1 << 30)
    code = f"""
import re
from pathlib import Path
from swetui.agent.tools.base import ReadFileArgs
from swetui.agent.tools.readers import read_file
from swetui.agent.tools.workspace import ReadLedger, WorkspaceFiles
from swetui.config import Settings
def read(offset):
    return read_file(WorkspaceFiles(Path({str(root)!r})), ReadLedger(), Settings(),
                     ReadFileArgs(path="big.log", offset=offset)).content.splitlines()
print([read(1)[-1], *read(1501)])
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text())[1]) // 1024)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    shown, peak_mb = done.stdout.splitlines()
    assert "[cut at 256,000 bytes: showed lines 1-1,500 (the file is 1.0 GB)" in shown
    assert "  1501\\t[binary data: more than 64.0 MB not shown]" in shown
    assert "[line 1,501 is longer than 64.0 MB: nothing after it was read]" in shown
    assert int(peak_mb) < 300, f"peak memory {peak_mb} MB: the gigabyte was read whole"


async def test_binary_and_invalid_utf8(toolbox: Toolbox, ws_root: Path):
    (ws_root / "blob.bin").write_bytes(b"\x7fELF\x00\x01" * 100)
    binary = await toolbox.run(tool_call("read_file", path="blob.bin"))
    assert binary.is_error and "binary" in binary.content
    (ws_root / "latin.txt").write_bytes(b"caf\xe9\n")
    latin = await toolbox.run(tool_call("read_file", path="latin.txt"))
    assert "caf\ufffd" in latin.content and "not valid UTF-8" in latin.content
