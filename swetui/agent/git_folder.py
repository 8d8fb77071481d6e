"""Whether git can read a workspace's repository without waiting on a file that is no file.

git opens `.git/HEAD`, its refs, reflogs and objects with a plain blocking `open`: a FIFO
planted there (a tarball can hold one, a confined command can make one) keeps a git reading
history waiting until its time limit, and the session's first command with it. Before git
runs unconfined on the workspace, its git folder is walked (names only, `d_type`: about a
microsecond an entry) and a FIFO, socket or device in it (or at the end of a symbolic
link there) is named; git is then not run."""

from __future__ import annotations

import os
from pathlib import Path

from swetui.files import file_kind, read_small_text

MAX_ENTRIES = 500_000
"""Entries walked at most (a repository of that many loose objects is left unchecked)."""


def git_folders(root: Path) -> tuple[list[Path], str | None]:
    """The git folders git would read for `root` (its `.git` folder, or the one a `.git`
    file names and its common folder), found as git finds them, upwards; or a reason not
    to run git (a `.git` that is no regular file or folder)."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        try:
            info = os.stat(dot_git)
        except OSError:
            continue
        kind = file_kind(info.st_mode)
        if kind is None:
            try:
                text = read_small_text(dot_git, 64 * 1024)
            except (OSError, ValueError) as exc:
                return [], f"{dot_git} could not be read ({exc})"
            named = text.strip().removeprefix("gitdir:").strip()
            found = [folder / named]
            try:
                common = read_small_text(found[0] / "commondir", 64 * 1024).strip()
                found.append(found[0] / common)
            except (OSError, ValueError):
                pass
            return found, None
        if kind != "a directory":
            return [], f"{dot_git} is {kind}"
        return [dot_git], None
    return [], None


def not_regular(folder: Path) -> str | None:
    """The first FIFO, socket or device in `folder` (symbolic links followed to what they
    name, folders walked but not through links), said as `PATH is a FIFO`; None if none."""
    pending, seen = [str(folder)], 0
    while pending and seen < MAX_ENTRIES:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                continue
            else:
                try:
                    kind = file_kind(os.stat(entry.path).st_mode)
                except OSError:
                    continue  # a dangling link: git finds nothing there either
                if kind not in (None, "a directory"):
                    return f"{entry.path} is {kind}"
    return None


def why_not_git(root: Path) -> str | None:
    """Why git must not be run on `root`'s repository (it would wait on a file), or None."""
    folders, refused = git_folders(root)
    if refused is not None:
        return refused
    return next((found for found in map(not_regular, folders) if found is not None), None)
