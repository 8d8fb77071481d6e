"""The paths git tracks in a workspace, read from its index file (`.git/index`) without
running git (git run by swetui outside a sandbox would run the repository's own settings:
`core.fsmonitor`, hooks). Formats 2, 3 and 4 (git's index-format documentation)."""

from __future__ import annotations

import os
import struct
from pathlib import Path

from swetui.agent.git_folder import git_dirs
from swetui.files import read_regular

MAX_INDEX_BYTES = 64 * 1024 * 1024
MAX_PATH_BYTES = 4096
"""A path longer than this cannot be checked out (the system's PATH_MAX): an index that has
one was not written by git for a working tree."""
MAX_PATHS_BYTES = 4 * MAX_INDEX_BYTES
"""All the paths together: format 4 stores each as a change of the one before, so a planted
index of 64 MB could otherwise spell out terabytes (each path one byte longer than the
last)."""
ENTRY_FIXED = 62
"""ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each), the object id (20) and the
flags (2) before an entry's path (SHA-1 repositories)."""


class UnreadableIndex(ValueError):
    """The index could not be read or is not a format this reader knows."""


def tracked_paths(root: str) -> list[str]:
    """Every path in the workspace's git index (empty when it has none); UnreadableIndex
    when there is one that cannot be read, so a caller can fail closed."""
    dirs = git_dirs(Path(root))  # a worktree's or submodule's: the one its `.git` names
    if dirs is None:
        return []
    if dirs.refused is not None:
        raise UnreadableIndex(dirs.refused)
    git = dirs.dirs[0]
    try:
        data, size = read_regular(os.path.join(git, "index"), MAX_INDEX_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UnreadableIndex(str(exc)) from None
    if size > MAX_INDEX_BYTES or data[:4] != b"DIRC":
        raise UnreadableIndex("not an index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise UnreadableIndex(f"index version {version}")
    paths: list[str] = []
    at, previous, total = 12, b"", 0
    try:
        for _ in range(count):
            flags = struct.unpack(">H", data[at + 60:at + 62])[0]
            at += ENTRY_FIXED + (2 if version >= 3 and flags & 0x4000 else 0)
            if version == 4:
                strip, at = _varint(data, at)
                end = data.index(b"\0", at)
                name = previous[:len(previous) - strip] + data[at:end]
                at = end + 1
            else:
                end = data.index(b"\0", at)
                name = data[at:end]
                start = at - ENTRY_FIXED - (2 if version >= 3 and flags & 0x4000 else 0)
                at = start + ((end - start) // 8 + 1) * 8
            total += len(name)
            if len(name) > MAX_PATH_BYTES or total > MAX_PATHS_BYTES:
                raise UnreadableIndex("paths longer than any checkout has")
            paths.append(name.decode("utf-8", "replace"))
            previous = name
    except (struct.error, ValueError, IndexError):
        raise UnreadableIndex("a damaged index") from None
    return paths


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """Git's offset varint (index format 4's prefix length) at `at`: (value, next)."""
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at
