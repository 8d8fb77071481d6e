"""The walk of a workspace that finds its read-only entries (`.git`, `.swetui`) and its
secret files by name or by a link's target, kept between walks: each directory is listed
again only when its mtime changed (a stat instead of a listing)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from swetui.agent.sandbox.secret_paths import secret_target
from swetui.agent.sensitive import CREDENTIAL_DIRS, is_secret_file

READ_ONLY_NAMES = frozenset({".git", ".swetui", ".hg", ".svn"})
MAX_WALK = 500_000
"""Entries a workspace may have: past this the sandbox refuses to start (fail closed)
rather than leave the secret files it did not reach readable."""
RACY_NS = 2_000_000_000
"""A listing taken less than this after its directory last changed is not kept: a change
within the same tick of the file system's coarse clock leaves the mtime as it was."""


@dataclass(frozen=True)
class Entry:
    """One name in a directory listing: whether it is a directory (links followed), a
    link, and its inode (for finding another name of a secret file)."""

    name: str
    is_dir: bool
    link: bool
    inode: int


@dataclass(frozen=True)
class Scanned:
    """What one walk found: read-only entries, secret files and directories (by name, or
    links by their target), and every directory listed as (path, device, entries)."""

    readonly: list[str]
    secrets: list[str]
    walked: list[tuple[str, int, list[Entry]]]


class WorkspaceTooLarge(RuntimeError):
    """The workspace has more entries than the secret-file walk may visit."""


class WorkspaceScan:
    """The walk of one directory tree, its listings kept while their directory is
    unchanged. Symlinked directories are followed once; nothing is skipped (secrets hide
    in node_modules too)."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._listing: dict[str, tuple[int, int, list[Entry]]] = {}

    def _entries(self, directory: str) -> tuple[int, int, list[Entry]]:
        """(device, inode, entries) of a directory, from the cache while it is unchanged."""
        try:
            info = os.stat(directory)
        except OSError:
            return 0, 0, []
        cached = self._listing.get(directory)
        if cached is not None and cached[0] == info.st_mtime_ns:
            return cached[1], info.st_ino, cached[2]
        listed_at = time.time_ns()
        entries = []
        try:
            with os.scandir(directory) as iterator:
                for entry in iterator:
                    try:
                        link = entry.is_symlink()
                        entries.append(Entry(entry.name, entry.is_dir(), link, entry.inode()))
                    except OSError:
                        continue
        except OSError:
            return 0, 0, []
        if listed_at - info.st_mtime_ns > RACY_NS:
            self._listing[directory] = (info.st_mtime_ns, info.st_dev, entries)
        else:
            self._listing.pop(directory, None)
        return info.st_dev, info.st_ino, entries

    def scan(self) -> Scanned:
        """Every `.git`/`.swetui` at any depth (files too), and the secret files and
        directories by name or target. Raises WorkspaceTooLarge past MAX_WALK entries."""
        readonly: list[str] = []
        secrets: list[str] = []
        seen = 0
        visited: set[tuple[int, int]] = set()
        walked: list[tuple[str, int, list[Entry]]] = []
        stack: list[tuple[str, bool]] = [(self.root, False)]
        while stack:
            directory, in_credentials = stack.pop()
            device, inode, entries = self._entries(directory)
            if (device, inode) in visited:
                continue
            visited.add((device, inode))
            walked.append((directory, device, entries))
            seen += len(entries)
            if seen > MAX_WALK:
                raise WorkspaceTooLarge(f"the workspace has more than {MAX_WALK:,} entries to "
                                        "scan for secret files")
            for entry in entries:
                path = os.path.join(directory, entry.name)
                if entry.name in READ_ONLY_NAMES and not entry.link:
                    readonly.append(path)
                    if entry.is_dir:  # walked too: a hard link of .env hides there as well
                        stack.append((path, False))
                elif in_credentials or is_secret_file(entry.name) or (
                        entry.link and secret_target(path, self.root)):
                    secrets.append(path)
                elif entry.is_dir:
                    stack.append((path, entry.name in CREDENTIAL_DIRS))
        return Scanned(readonly, secrets, walked)
