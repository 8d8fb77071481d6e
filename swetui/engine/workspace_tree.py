"""The files of a workspace as retrieval and the symbol map see them: regular files outside
version control, virtual environments, tool caches, build output and `.swetui/`."""

from __future__ import annotations

import os
from pathlib import Path

from swetui.files import BUILD_DIRS, TOOL_DIRS

IGNORED_DIRS = TOOL_DIRS | BUILD_DIRS | {".swetui"}
MAX_SCAN_FILES = 20_000


def walk(root: Path, ignore: frozenset[str] = IGNORED_DIRS,
         limit: int = MAX_SCAN_FILES) -> tuple[list[str], bool]:
    """Workspace-relative posix paths of regular files (sorted per directory), and whether
    the `limit` cut the walk short."""
    found: list[str] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(root / rel if rel else root), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in ignore:
                        subdirs.append(name)
                elif entry.is_file(follow_symlinks=False):
                    found.append(name)
                    if len(found) >= limit:
                        return found, True
            except OSError:
                continue
        stack.extend(reversed(subdirs))
    return found, False
