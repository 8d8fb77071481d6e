"""Whether git can read a workspace's repository without waiting on a file that is no file.

git opens `.git/HEAD`, its refs, reflogs and objects with a plain blocking `open`: a FIFO
planted there (a tarball can hold one, a confined command can make one) keeps a git reading
history waiting until its time limit, and the session's first command with it. Before git
runs unconfined on the workspace, its git folder is walked (names only, `d_type`: about a
microsecond an entry) and a FIFO, socket or device in it (or at the end of a symbolic
link there) is named; git is then not run.

`git_dirs` is the one place a `.git` is followed to the git directory a `.git` file names
and on to its `commondir`, without waiting on any of them: the sandbox's grants
(`sandbox.readable`), the git index reader (`tools.git_index`) and this check use it."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from swetui.files import file_kind, read_error, read_small_text

MAX_ENTRIES = 500_000
"""Entries walked at most (a repository of that many loose objects is left unchecked)."""
MAX_POINTER_BYTES = 64 * 1024
"""A `.git` file, `gitdir` or `commondir` larger than this is no pointer git wrote."""


@dataclass(frozen=True)
class GitDirs:
    """Where git keeps the repository of a folder with a `.git`: that folder, or the git
    directory a `.git` file names and the common directory that one names (a worktree),
    or why they cannot be read."""

    dot_git: Path
    dirs: list[Path]
    """The git directory first, then the common one when there is one."""
    linked: bool
    """Whether `.git` is a file naming the git directory (a worktree, a submodule)."""
    refused: str | None = None


def read_pointer(path: Path) -> str:
    """The first line of a small file git keeps a path in (`.git`, `gitdir`, `commondir`),
    read without ever waiting (a FIFO or device is an OSError, as is a large file)."""
    return read_small_text(path, MAX_POINTER_BYTES).split("\n", 1)[0].rstrip()


def git_dirs(folder: Path, *, follow_symlinks: bool = True) -> GitDirs | None:
    """The git directories of `folder`'s `.git` (None when it has none), read as git reads
    them and never waiting on a file: `gitdir: PATH` in a `.git` file (relative to the
    folder), then that directory's `commondir` (relative to it). A `.git` that is a FIFO,
    socket or device, or a pointer that cannot be read, is `refused`, naming the file;
    so is a link when not `follow_symlinks`."""
    dot_git = folder / ".git"
    try:
        info = os.stat(dot_git, follow_symlinks=follow_symlinks)
    except OSError:
        return None
    kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else file_kind(info.st_mode)
    if kind == "a directory":
        return GitDirs(dot_git, [dot_git], False)
    if kind is not None:
        return GitDirs(dot_git, [], False, f"{dot_git} is {kind}")
    try:
        first = read_pointer(dot_git)
    except (OSError, ValueError) as exc:
        return GitDirs(dot_git, [], True, _unreadable(dot_git, exc))
    if not first.startswith("gitdir: "):
        return GitDirs(dot_git, [], True, f"{dot_git} names no git directory")
    named = folder / first.removeprefix("gitdir: ")
    common = named / "commondir"
    try:
        return GitDirs(dot_git, [named, named / read_pointer(common)], True)
    except FileNotFoundError:  # a submodule's git directory: no common one
        return GitDirs(dot_git, [named], True)
    except (OSError, ValueError) as exc:  # git would wait on it, or stop
        return GitDirs(dot_git, [], True, _unreadable(common, exc))


def _unreadable(path: Path, exc: Exception) -> str:
    if isinstance(exc, OSError):
        return read_error(str(path), exc)
    return f"{path}: cannot be read ({exc})"


def git_folders(root: Path) -> tuple[list[Path], str | None]:
    """The git folders git would read for `root` (its `.git` folder, or the one a `.git`
    file names and its common folder), found as git finds them, upwards; or a reason not
    to run git (a `.git` that is no regular file or folder, a pointer git would wait on)."""
    for folder in (root, *root.parents):
        found = git_dirs(folder)
        if found is not None:
            return found.dirs, found.refused
    return [], None


def not_regular(folders: list[Path]) -> str | None:
    """The first FIFO, socket or device in `folders` (symbolic links followed to what they
    name, folders walked but not through links), said as `PATH is a FIFO`; None if none.
    One budget of `MAX_ENTRIES` for them all: a planted alternates file names many."""
    pending, seen = [str(folder) for folder in reversed(folders)], 0
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


MAX_ALTERNATES = 5
"""How deep git follows alternates of alternates."""
MAX_ALTERNATE_LINES = 10_000
"""Lines of alternates files read at most, all together (thousands of folders may each
name thousands), each file at most `MAX_POINTER_BYTES`: beyond, git is not run."""


def alternates(folders: list[Path]) -> list[Path] | None:
    """The object folders the repositories in `folders` borrow from (each line of
    `objects/info/alternates`, relative to `objects`, and theirs, as deep as git goes):
    git opens their files as its own. Read without waiting (a FIFO there is found by the
    walk of the git folder); each folder once however it is spelt (`vendor/../vendor`),
    and only folders that exist (git skips the others). None when there is more than is
    checked (`MAX_ALTERNATE_LINES`, a file over `MAX_POINTER_BYTES`)."""
    found: list[Path] = []
    lines = 0
    seen: set[str] = set()
    pending = [folder / "objects" for folder in folders]
    for _ in range(MAX_ALTERNATES):
        more = []
        for objects in pending:
            try:
                text = read_small_text(objects / "info" / "alternates", MAX_POINTER_BYTES)
            except OSError as exc:
                if exc.errno == errno.EFBIG:
                    return None  # git reads it all: its folders would go unchecked
                continue
            except ValueError:
                continue
            lines += text.count("\n") + 1
            if lines > MAX_ALTERNATE_LINES:
                return None
            for line in text.splitlines():
                if not line.strip() or line.startswith("#"):
                    continue
                real = os.path.realpath(objects / line.strip())
                if real not in seen and os.path.isdir(real):
                    seen.add(real)
                    found.append(Path(real))
                    more.append(Path(real))
        pending = more
    return found


def why_not_git(root: Path) -> str | None:
    """Why git must not be run on `root`'s repository (it would wait on a file), or None."""
    folders, refused = git_folders(root)
    if refused is not None:
        return refused
    borrowed = alternates(folders)
    if borrowed is None:
        return f"the alternates files of {folders[0]} name more object folders than " \
               "swetui checks"
    return not_regular([*folders, *borrowed])
