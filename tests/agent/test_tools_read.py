"""The read-only tools, argument validation and workspace confinement."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from swetui.agent.toolbox import Toolbox
from swetui.messages import ToolCall
from tests.agent.conftest import tool_call


async def test_read_file_numbers_lines_and_records_stamp(toolbox: Toolbox):
    result = await toolbox.run(tool_call("read_file", path="src/app.py"))
    assert not result.is_error
    assert "     1\timport os" in result.content
    assert "     5\t    print('hello')" in result.content
    assert result.summary == "read 6 lines of src/app.py"
    assert result.path == "src/app.py"
    assert len(result.data["sha256"]) == 64 and result.data["mtime_ns"] > 0


async def test_read_file_cuts_at_max_lines_and_says_how_to_read_on(toolbox: Toolbox,
                                                                   ws_root: Path):
    (ws_root / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 121)))
    result = await toolbox.run(tool_call("read_file", path="long.txt"))
    assert "line 50" in result.content and "line 51" not in result.content
    assert "cut at 50 lines" in result.content and "of 120" in result.content
    assert "offset=51" in result.content
    assert result.summary == "read 50 lines of long.txt (cut at 50 lines)"
    more = await toolbox.run(tool_call("read_file", path="long.txt", offset=51, limit=10))
    assert "    51\tline 51" in more.content and "line 61" not in more.content


async def test_read_file_cuts_a_huge_file_by_bytes(toolbox: Toolbox, ws_root: Path):
    (ws_root / "big.log").write_text("".join(f"{'x' * 200} {n}\n" for n in range(40)))
    result = await toolbox.run(tool_call("read_file", path="big.log"))
    assert "cut at 4,096 bytes" in result.content
    assert result.data["lines"] < 40
    assert f"offset={result.data['lines'] + 1}" in result.content


async def test_read_file_refuses_binary(toolbox: Toolbox, ws_root: Path):
    (ws_root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(100))
    result = await toolbox.run(tool_call("read_file", path="logo.png"))
    assert result.is_error and "binary file" in result.content


async def test_read_file_decodes_non_utf8_with_a_note(toolbox: Toolbox, ws_root: Path):
    (ws_root / "latin.txt").write_bytes("café au lait\n".encode("latin-1"))
    result = await toolbox.run(tool_call("read_file", path="latin.txt"))
    assert not result.is_error
    assert "caf\ufffd au lait" in result.content
    assert "not valid UTF-8" in result.content


async def test_read_file_missing_and_directory(toolbox: Toolbox):
    missing = await toolbox.run(tool_call("read_file", path="nope.py"))
    assert missing.is_error and "no such file: nope.py" in missing.content
    folder = await toolbox.run(tool_call("read_file", path="src"))
    assert folder.is_error and "list_dir" in folder.content


async def test_read_file_refuses_secret_files(toolbox: Toolbox, ws_root: Path):
    (ws_root / ".env").write_text("OPENAI_API_KEY=sk-secret\n")
    (ws_root / ".env.example").write_text("OPENAI_API_KEY=\n")
    result = await toolbox.run(tool_call("read_file", path=".env"))
    assert result.is_error and "sk-secret" not in result.content
    assert not (await toolbox.run(tool_call("read_file", path=".env.example"))).is_error


@pytest.mark.parametrize("path", ["../outside.txt", "src/../../outside.txt"])
async def test_traversal_is_refused(toolbox: Toolbox, ws_root: Path, path: str):
    (ws_root.parent / "outside.txt").write_text("secret")
    result = await toolbox.run(tool_call("read_file", path=path))
    assert result.is_error and "outside the workspace" in result.content
    assert "secret" not in result.content


async def test_absolute_path_outside_is_refused_but_inside_works(toolbox: Toolbox,
                                                                 ws_root: Path):
    (ws_root.parent / "outside.txt").write_text("secret")
    outside = await toolbox.run(tool_call("read_file", path=str(ws_root.parent / "outside.txt")))
    assert outside.is_error and "outside the workspace" in outside.content
    inside = await toolbox.run(tool_call("read_file", path=str(ws_root / "README.md")))
    assert not inside.is_error and inside.path == "README.md"


async def test_symlink_pointing_outside_is_refused(toolbox: Toolbox, ws_root: Path):
    (ws_root.parent / "outside.txt").write_text("secret")
    (ws_root / "link.txt").symlink_to(ws_root.parent / "outside.txt")
    (ws_root / "linkdir").symlink_to(ws_root.parent)
    for path in ("link.txt", "linkdir/outside.txt"):
        result = await toolbox.run(tool_call("read_file", path=path))
        assert result.is_error and "outside the workspace" in result.content
        assert "secret" not in result.content
    listing = await toolbox.run(tool_call("list_dir", path="linkdir"))
    assert listing.is_error


async def test_list_dir_sorted_marks_dirs_and_skips_git(toolbox: Toolbox, ws_root: Path):
    (ws_root / ".git").mkdir()
    (ws_root / "b.txt").write_text("")
    result = await toolbox.run(tool_call("list_dir"))
    assert result.content.splitlines() == ["b.txt", "README.md", "src/"]
    assert result.summary == "3 entries in the workspace root"


async def test_glob_ignores_vendor_dirs_and_matches_any_depth(toolbox: Toolbox,
                                                              ws_root: Path):
    for folder in (".venv/lib", "node_modules/x", ".git", "pkg/sub"):
        (ws_root / folder).mkdir(parents=True)
    (ws_root / ".venv/lib/site.py").write_text("")
    (ws_root / "node_modules/x/y.py").write_text("")
    (ws_root / "pkg/sub/deep.py").write_text("")
    result = await toolbox.run(tool_call("glob", pattern="**/*.py"))
    assert result.content.splitlines() == ["pkg/sub/deep.py", "src/app.py"]
    assert (await toolbox.run(tool_call("glob", pattern="*.py"))).content.splitlines() == \
        ["pkg/sub/deep.py", "src/app.py"]
    assert (await toolbox.run(tool_call("glob", pattern="src/*.py"))).content == "src/app.py"
    assert (await toolbox.run(tool_call("glob", pattern="../*"))).is_error


async def test_grep_reports_hits_and_skips_binary_and_ignored(toolbox: Toolbox, ws_root: Path):
    (ws_root / "blob.bin").write_bytes(b"hello\x00world")
    (ws_root / "node_modules").mkdir()
    (ws_root / "node_modules/lib.js").write_text("hello")
    (ws_root / "notes.md").write_text("say hello\nbye\nhello again\n")
    result = await toolbox.run(tool_call("grep", pattern=r"hel+o"))
    lines = result.content.splitlines()
    assert "notes.md:1: say hello" in lines and "notes.md:3: hello again" in lines
    assert "src/app.py:5:     print('hello')" in lines
    assert not any("node_modules" in line for line in lines)
    assert "[skipped 1 file: binary]" in lines
    assert result.summary == "3 hits in 2 files"
    only_md = await toolbox.run(tool_call("grep", pattern="hello", glob="*.md"))
    assert only_md.summary == "2 hits in 1 file"


async def test_grep_caps_output_and_counts_the_rest(toolbox: Toolbox, ws_root: Path):
    (ws_root / "many.txt").write_text("match\n" * 250)
    result = await toolbox.run(tool_call("grep", pattern="match", path="many.txt"))
    assert result.content.count("many.txt:") == 200
    assert "50 more matching lines not shown" in result.content


async def test_grep_invalid_regex_is_a_clear_error(toolbox: Toolbox):
    result = await toolbox.run(tool_call("grep", pattern="foo(("))
    assert result.is_error and "invalid regular expression" in result.content


@pytest.mark.parametrize(("name", "arguments", "expected"), [
    ("frobnicate", {}, "unknown tool 'frobnicate'"),
    ("read_file", {}, "path: Field required"),
    ("read_file", {"path": 12}, "path: Input should be a valid string"),
    ("read_file", {"path": "a", "colour": "red"}, "colour: unknown argument"),
    ("bash", {"command": "ls", "timeout": "soon"}, "timeout"),
    ("recall", {"id": "x", "form": "poem"}, "form"),
])
async def test_bad_calls_become_error_results(toolbox: Toolbox, name: str,
                                              arguments: dict, expected: str):
    result = await toolbox.run(tool_call(name, **arguments))
    assert result.is_error and expected in result.content


async def test_none_arguments_become_an_error_result(toolbox: Toolbox):
    call = ToolCall.model_construct(id="c1", name="read_file", arguments=None)
    result = await toolbox.run(call)
    assert result.is_error and "must be a JSON object" in result.content


async def test_recall_uses_the_callback(make_toolbox):
    archive = {"x1": {"header": "fixed the parser", "full": "the whole exchange"}}

    async def recall(item_id: str, form: str) -> str:
        return archive[item_id][form]

    toolbox = make_toolbox(recall=recall)
    found = await toolbox.run(tool_call("recall", id="x1", form="header"))
    assert found.content == "fixed the parser" and not found.is_error
    unknown = await toolbox.run(tool_call("recall", id="zz", form="full"))
    assert unknown.is_error and "no archived exchange with id 'zz'" in unknown.content
    bare = await make_toolbox().run(tool_call("recall", id="x1", form="full"))
    assert bare.is_error and "not available" in bare.content


def test_agent_packages_import_without_textual():
    code = ("import sys, swetui.agent.toolbox, swetui.agent.approvals, swetui.agent.policy, "
            "swetui.agent.rules, swetui.agent.diffs, swetui.agent.tools.checkpoints; "
            "print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).parents[2], env={**os.environ}, check=True)
    assert out.stdout.strip() == "False"


async def test_grep_does_not_follow_a_symlink_out_of_the_workspace(toolbox: Toolbox,
                                                                  ws_root: Path):
    (ws_root.parent / "outside.txt").write_text("OUTSIDE-SECRET\n")
    (ws_root / "link.txt").symlink_to(ws_root.parent / "outside.txt")
    (ws_root / "inside.txt").write_text("INSIDE-SECRET\n")
    (ws_root / "alias.txt").symlink_to(ws_root / "inside.txt")
    (ws_root / ".env").write_text("ENV-SECRET=1\n")
    (ws_root / "settings.txt").symlink_to(ws_root / ".env")
    result = await toolbox.run(tool_call("grep", pattern="SECRET"))
    assert "ENV-SECRET" not in result.content
    assert "OUTSIDE-SECRET" not in result.content
    assert "inside.txt:1: INSIDE-SECRET" in result.content
    assert "alias.txt:1: INSIDE-SECRET" in result.content  # a link inside is fine
    assert "outside the workspace" in result.content
    named = await toolbox.run(tool_call("grep", pattern="SECRET", path="link.txt"))
    assert named.is_error and "OUTSIDE-SECRET" not in named.content
