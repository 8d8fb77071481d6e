"""The hostile corpus through every file tool, as the model calls them: each gets a clear
message, nothing from outside the workspace comes back, nothing outside is written, and
what comes back is bounded. FIFO and gigabyte cases run in a watched child process."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.events import ApprovalRequested
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.base import ToolResult
from swetui.config import Settings
from swetui.engine.bus import EventBus
from swetui.messages import ToolCall
from tests.faults.corpus import ESCAPE_NAMES, OUTSIDE, Corpus, build, run_child

OUT = "outside the workspace"
MAX_RESULT = 300_000
"""No tool result may be larger than this (reads are capped at 256 KB by default)."""
_ids = itertools.count(1)


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return build(tmp_path)


async def call(root: Path, name: str, **arguments: Any) -> ToolResult:
    """One tool call through the real toolbox; anything that asks for approval is denied."""
    bus = EventBus()
    queue = ApprovalQueue(bus)
    bus.subscribe(lambda event: asyncio.get_running_loop().call_soon(
        queue.deny, event.action.id, "corpus test"), ApprovalRequested)
    toolbox = Toolbox(root, Settings(), queue, bus, mode="ask")
    return await asyncio.wait_for(
        toolbox.run(ToolCall(id=f"c{next(_ids)}", name=name, arguments=arguments)), 60)


# (tool, arguments, is_error, what the message must say)
CASES: list[tuple[str, dict[str, Any], bool, str]] = [
    ("read_file", {"path": "../../etc/passwd"}, True, OUT),
    ("read_file", {"path": "/etc/passwd"}, True, OUT),
    ("read_file", {"path": "outside.txt"}, True, f"through a symlink {OUT}"),
    ("read_file", {"path": "up.txt"}, True, f"through a symlink {OUT}"),
    ("read_file", {"path": "outside_dir/secret.txt"}, True, OUT),
    ("read_file", {"path": "zero.txt"}, True, OUT),
    ("read_file", {"path": "stdin.txt"}, True, OUT),
    ("read_file", {"path": "loop.txt"}, True, "loop.txt"),
    ("read_file", {"path": "blob.bin"}, True, "blob.bin is a binary file"),
    ("read_file", {"path": "latin1.txt"}, False, "not valid UTF-8"),
    ("read_file", {"path": "oneline.txt"}, False, "[lines longer than 2,000 characters"),
    ("read_file", {"path": ESCAPE_NAMES[0]}, False, "ordinary text"),
    ("list_dir", {"path": "../.."}, True, OUT),
    ("list_dir", {"path": "/"}, True, OUT),
    ("list_dir", {"path": "outside_dir"}, True, f"through a symlink {OUT}"),
    ("list_dir", {"path": "loop.txt"}, True, "loop.txt"),
    ("list_dir", {"path": "."}, False, "outside_dir@"),
    ("glob", {"pattern": "../*"}, True, "stay inside it"),
    ("glob", {"pattern": "/etc/*"}, True, "stay inside it"),
    ("glob", {"pattern": "**/*"}, False, "pipe.txt"),
    ("grep", {"pattern": "S.CRET", "path": "../.."}, True, OUT),
    ("grep", {"pattern": "S.CRET", "path": "outside_dir"}, True, OUT),
    ("grep", {"pattern": "S.CRET", "path": "outside.txt"}, True, OUT),
    ("grep", {"pattern": "S.CRET", "glob": "../*"}, True, "stay inside it"),
    ("edit_file", {"path": "../x.txt", "old": "a", "new": "b"}, True, OUT),
    ("edit_file", {"path": "/etc/hostname", "old": "a", "new": "b"}, True, OUT),
    ("edit_file", {"path": "outside.txt", "old": OUTSIDE, "new": "b"}, True, OUT),
    ("edit_file", {"path": "outside_dir/secret.txt", "old": OUTSIDE, "new": "b"}, True, OUT),
    ("edit_file", {"path": "zero.txt", "old": "a", "new": "b"}, True, OUT),
    ("edit_file", {"path": "loop.txt", "old": "a", "new": "b"}, True, "loop.txt"),
    ("edit_file", {"path": "blob.bin", "old": "a", "new": "b"}, True, "binary file"),
    ("edit_file", {"path": "latin1.txt", "old": "caf", "new": "b"}, True, "not valid UTF-8"),
    ("edit_file", {"path": "sparse.txt", "old": "a", "new": "b"}, True, "too large to edit"),
    ("edit_file", {"path": "oneline.txt", "old": "var x=1;", "new": "let x=1;"}, True,
     "occurs 655360 times"),
    ("write_file", {"path": "../escape.txt", "content": "x"}, True, OUT),
    ("write_file", {"path": "/tmp/escape.txt", "content": "x"}, True, OUT),
    ("write_file", {"path": "outside_dir/new.txt", "content": "x"}, True, OUT),
    ("write_file", {"path": "outside.txt", "content": "x"}, True, OUT),
    ("write_file", {"path": "zero.txt", "content": "x"}, True, OUT),
    ("write_file", {"path": "sparse.txt", "content": "x"}, True, "too large to edit"),
    ("write_file", {"path": "\x1b[31mred.txt", "content": "x"}, True, "denied"),
]


def _case_id(case: tuple[str, dict[str, Any], bool, str]) -> str:
    tool, arguments, _, _ = case
    target = arguments.get("path", arguments.get("pattern", ""))
    return f"{tool}-{target!r}"


@pytest.mark.parametrize(("tool", "arguments", "is_error", "says"), CASES,
                         ids=[_case_id(case) for case in CASES])
async def test_hostile_path(corpus: Corpus, tool: str, arguments: dict[str, Any],
                            is_error: bool, says: str) -> None:
    outside_before = {p: p.read_bytes() for p in corpus.outside.rglob("*") if p.is_file()}
    result = await call(corpus.root, tool, **arguments)
    assert result.is_error == is_error, result.content
    assert says in result.content
    assert OUTSIDE not in result.content + result.summary
    assert len(result.content) < MAX_RESULT
    outside_after = {p: p.read_bytes() for p in corpus.outside.rglob("*") if p.is_file()}
    assert outside_after == outside_before  # nothing outside was written or added
    assert not (corpus.root.parent / "escape.txt").exists()


# -- FIFOs and the gigabyte file: in a watched child, never a hang in the suite ---------------

CHILD = """
    import asyncio, sys
    from pathlib import Path
    from swetui.agent.approvals import ApprovalQueue
    from swetui.agent.tools import files, readers
    from swetui.agent.tools.base import ToolError, parse_arguments
    from swetui.agent.tools.workspace import ReadLedger, WorkspaceFiles
    from swetui.config import Settings
    from swetui.messages import ToolCall
    root, tool, raw = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    import json
    arguments = json.loads(raw)
    ws, ledger, settings = WorkspaceFiles(root), ReadLedger(), Settings()
    args = parse_arguments(tool, arguments)
    call = ToolCall(id="c1", name=tool, arguments=arguments)
    try:
        if tool == "read_file":
            out = readers.read_file(ws, ledger, settings, args)
        elif tool == "grep":
            out = readers.grep(ws, settings, args)
        elif tool == "edit_file":
            out = files.prepare_edit(ws, ledger, call, args).summary
        elif tool == "write_file":
            out = files.prepare_write(ws, ledger, call, args).summary
        content = out if isinstance(out, str) else out.content
        result = {"is_error": False, "content": content}
    except ToolError as exc:
        result = {"is_error": True, "content": exc.message}
"""

CHILD_CASES = [
    pytest.param("read_file", {"path": "pipe.txt"}, True, "FIFO",
                 id="read-fifo"),
    pytest.param("edit_file", {"path": "pipe.txt", "old": "a", "new": "b"}, True, "FIFO",
                 id="edit-fifo"),
    pytest.param("write_file", {"path": "pipe.txt", "content": "x"}, True, "FIFO",
                 id="write-fifo"),
    pytest.param("grep", {"pattern": "S.CRET", "path": "."}, False, "no matches",
                 id="grep-tree-with-fifo"),
    pytest.param("grep", {"pattern": "S.CRET", "path": "pipe.txt"}, False, "no matches",
                 id="grep-the-fifo"),
    pytest.param("read_file", {"path": "sparse.txt"}, False, "[cut at 256,000 bytes",
                 id="read-1gb-sparse"),
]


@pytest.mark.parametrize(("tool", "arguments", "is_error", "says"), CHILD_CASES)
def test_fifo_and_gigabyte_files_never_hang_or_fill_memory(
        corpus: Corpus, tool: str, arguments: dict[str, Any], is_error: bool,
        says: str) -> None:
    import json

    # 1 GB of address space: enough for swetui, not for reading the sparse file whole.
    result = run_child(CHILD, memory_limit=1 << 30,
                       args=(str(corpus.root), tool, json.dumps(arguments)))
    assert result.get("error") is None, result
    assert result["is_error"] == is_error, result
    assert says in str(result["content"])
    assert OUTSIDE not in str(result["content"])
    assert len(str(result["content"])) < MAX_RESULT
