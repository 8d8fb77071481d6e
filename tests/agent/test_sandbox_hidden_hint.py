"""A confined command that reads a place the sandbox hides often gets "No such file or
directory", not "Permission denied" (the workspace under /tmp: the sandbox's /tmp is its own,
so `../other` is not there). The model and the person who approved must still be told the
sandbox may have blocked it (and be offered to run it outside), without swetui saying
whether that file exists."""

from __future__ import annotations

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
    for command in ["cat src/missing.py", "cat /usr/share/no-such-dir/x.txt"]:
        missing = await box.run(tool_call("bash", command=command))
        assert "No such file or directory" in missing.content, command
        assert "may have blocked" not in missing.content, command
        assert not missing.data["sandbox_denied"], command


@given(st.lists(st.text(alphabet="abcxyz._- ", min_size=1, max_size=8)
                .filter(lambda part: part not in (".", "..")), min_size=1, max_size=5),
       st.sampled_from(["cat: {}: No such file or directory",
                        "FileNotFoundError: [Errno 2] No such file or directory: '{}'",
                        "ls: cannot access '{}': No such file or directory"]))
def test_a_path_inside_the_workspace_never_gets_the_hint(parts: list[str], line: str) -> None:
    text = line.format("/".join(["src", *parts]))
    assert hidden_outside(text, "/work/project", ["/usr", "/etc"]) is None
    assert hidden_outside(line.format("../elsewhere/" + "/".join(parts)), "/work/project",
                          ["/usr", "/etc"]) is not None
