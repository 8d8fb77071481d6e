"""A confined command that reads a place the sandbox hides often gets "No such file or
directory", not "Permission denied" (the workspace under /tmp: the sandbox's /tmp is its own,
so `../other` is not there). The model and the person who approved must still be told the
sandbox may have blocked it (and be offered to run it outside), without swetui saying
whether that file exists."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.sandbox import probe
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.shell import hidden_outside
from swetui.engine.bus import EventBus
from tests.agent.conftest import tool_call
from tests.agent.test_sandbox import approving


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
async def test_a_missing_file_the_sandbox_hides_says_the_sandbox_may_have_blocked_it(
        ws_root: Path, make_toolbox: Callable[..., Toolbox], agent_bus: EventBus) -> None:
    (ws_root.parent / "other").mkdir()
    (ws_root.parent / "other" / "notes.txt").write_text("shared notes\n")
    box = make_toolbox("auto")
    asked = approving(box.queue, agent_bus)  # declines to run it outside the sandbox
    hidden = await box.run(tool_call("bash", command="cat ../other/notes.txt"))
    assert "No such file or directory" in hidden.content
    assert "may have blocked it" in hidden.content and "sandbox_read" in hidden.content
    assert hidden.data["sandbox_denied"] and any("unconfined" in a for a in asked)
    # a real failure outside everything granted: the sandbox makes such a file unreadable,
    # never missing, so it cannot be the cause (the hint fired on these before)
    for command in ["cat src/missing.py", "cat /usr/share/no-such-dir/x.txt",
                    "cat /no-such-swetui-dir/x.txt", "cat ~/no-such-swetui-file.txt"]:
        missing = await box.run(tool_call("bash", command=command))
        assert "No such file or directory" in missing.content, command
        assert "may have blocked" not in missing.content, command
        assert not missing.data["sandbox_denied"], command


PLACES = ["/tmp", "/dev", "/proc"]
_NAMES = st.lists(st.text(alphabet="abcxyz._- ", min_size=1, max_size=8)
                  .filter(lambda part: part not in (".", "..")), min_size=1, max_size=5)
_LINES = st.sampled_from(["cat: {}: No such file or directory",
                          "FileNotFoundError: [Errno 2] No such file or directory: '{}'",
                          "ls: cannot access '{}': No such file or directory"])


@given(_NAMES, _LINES)
def test_the_hint_is_given_only_where_the_sandbox_replaces_the_files(
        parts: list[str], line: str) -> None:
    """Inside the workspace, and outside the places the sandbox replaces by its own, a
    missing file is missing whatever the sandbox does: no hint. Under them (a workspace
    in /tmp, `../other`) the file may exist outside: the hint."""
    named = "/".join(parts)
    root = "/tmp/work/project"
    assert hidden_outside(line.format("src/" + named), root, PLACES) is None
    assert hidden_outside(line.format("/srv/" + named), root, PLACES) is None
    assert hidden_outside(line.format("/tmp/work/elsewhere/" + named), "/srv/project",
                          PLACES) is not None
    assert hidden_outside(line.format("../elsewhere/" + named), root, PLACES) is not None
    assert hidden_outside(line.format("../elsewhere/" + named), "/srv/project", PLACES) is None


@given(_NAMES, _LINES, st.sampled_from(["", "../", "/tmp/"]))
def test_the_hint_never_says_whether_the_file_exists(
        tmp_path_factory: pytest.TempPathFactory, parts: list[str], line: str,
        where: str) -> None:
    """The same answer whether the named file exists (outside the sandbox) or not: the
    hint is judged on the name, never by looking it up."""
    base = tmp_path_factory.mktemp("hint")
    root = base / "project"
    root.mkdir()
    named = f"{where}{'/'.join(parts)}" if where != "/tmp/" else \
        f"{base}/other/{'/'.join(parts)}"
    text = line.format(named)
    places = [str(base)]
    before = hidden_outside(text, str(root), places)
    target = Path(os.path.normpath(os.path.join(root, named)))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("here\n")
    assert hidden_outside(text, str(root), places) == before
