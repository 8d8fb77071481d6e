"""The git index read without git: the paths it lists are the ones `git ls-files` lists,
in every index format git writes (2, 3 with extended flags, 4 with prefix compression)."""

from __future__ import annotations

import struct
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.agent.tools.git_index import MAX_PATH_BYTES, UnreadableIndex, tracked_paths

NAMES = st.text(alphabet="abcdefghij_.-é", min_size=1, max_size=12).filter(
    lambda name: name not in (".", "..", ".git") and not name.startswith("-"))
TREES = st.lists(st.lists(NAMES, min_size=1, max_size=3).map("/".join), min_size=1,
                 max_size=12, unique=True)


@settings(max_examples=12, deadline=None)
@given(paths=TREES, version=st.sampled_from([2, 3, 4]), intent=st.booleans())
def test_the_index_lists_what_git_lists(paths: list[str], version: int, intent: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        written = []
        for path in paths:
            target = root / path
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(path)
            except (FileExistsError, NotADirectoryError, IsADirectoryError):
                continue  # `a` and `a/b` both asked for: one of them is a directory
            written.append(path)
        subprocess.run(["git", "add", *(["-N"] if intent and version >= 3 else []), "--",
                        *written], cwd=root, check=True, capture_output=True)
        subprocess.run(["git", "update-index", "--index-version", str(version)], cwd=root,
                       check=True)
        listed = subprocess.run(["git", "-c", "core.quotepath=off", "ls-files"], cwd=root,
                                capture_output=True, text=True, check=True).stdout
        assert tracked_paths(str(root)) == listed.splitlines()


def test_a_planted_index_spelling_out_ever_longer_paths_is_unreadable(tmp_path: Path) -> None:
    """Format 4 stores a path as a change of the one before: entries of a few bytes, each
    adding one byte to the last path, spell out paths no checkout has (and, over 64 MB, a
    quadratic mountain of memory). Such an index is refused (callers then ask)."""
    count = MAX_PATH_BYTES + 10
    entry = bytes(60) + struct.pack(">H", 1) + b"\x00" + b"a\x00"  # strip nothing, add "a"
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "index").write_bytes(b"DIRC" + struct.pack(">II", 4, count)
                                              + entry * count)
    with pytest.raises(UnreadableIndex):
        tracked_paths(str(tmp_path))
