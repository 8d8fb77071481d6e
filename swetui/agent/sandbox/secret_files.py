"""The one rule for which files of a workspace are secrets, whatever name reaches them, kept
for as long as swetui runs there (`secret_files(root)`):

- by the name asked for and the file it leads to (`rule(rel)`: `.env`, `settings.py ->
  .env`, a link into `~/.aws`): `secret_paths.secret_target`;
- by the file actually opened (`rule.opened(os.fstat(fd))`): another name (hard link) of
  a secret file of the workspace or of the home's credentials is that secret. Checked on
  the open descriptor, so a name swapped for a hard link between a check and the read
  is still refused.

The secret files' inodes are gathered by a walk of the workspace that re-lists only the
directories that changed; it runs only when a file with several names is opened whose
inode is unknown and whose links changed since the last walk (its ctime is newer), so
ordinary files never cost a walk and a hard link made later is still seen.
"""

from __future__ import annotations

import functools
import os
import stat
import threading
import time
from pathlib import Path

from swetui.agent.sandbox.scan import Entry, WorkspaceScan, WorkspaceTooLarge
from swetui.agent.sandbox.secret_paths import home_secret_files, secret_target
from swetui.agent.sensitive import is_secret_file

CLOCK_SLACK_NS = 100_000_000
"""File times come from a coarse clock that can lag the one read here: a walk is taken as
having started this much earlier, so a link made just after it still triggers the next."""
EVERY_FILE = (-1, -1)
"""In place of the inodes when the workspace is too large to walk: every file with
several names counts as a secret (fail closed)."""


class SecretFiles:
    """A workspace's secret files, by name, target and inode (module docstring)."""

    def __init__(self, root: str | Path) -> None:
        self.root = os.path.realpath(root)
        self._scan = WorkspaceScan(Path(self.root))
        self._lock = threading.Lock()
        self._inodes: set[tuple[int, int]] | None = None
        self._walked: list[tuple[str, int, list[Entry]]] = []
        self._named: list[str] = []
        self._readonly: list[str] = []
        self._since = 0

    def __call__(self, rel: str, walked: bool = False) -> bool:
        """Whether the workspace path `rel` is a secret by its name or by the file it leads
        to (`walked`: listed by a walk that follows no link, so it leads to itself)."""
        if is_secret_file(rel):
            return True
        return not walked and secret_target(rel, self.root)

    def opened(self, info: os.stat_result) -> bool:
        """Whether the file `info` describes (an open descriptor's `fstat`) is another name
        of a secret file."""
        if not stat.S_ISREG(info.st_mode):
            return False
        key = (info.st_dev, info.st_ino)
        with self._lock:
            known = self._inodes
            if known is not None and key in known:
                return True
            if info.st_nlink < 2:
                return False
            if known is None or info.st_ctime_ns >= self._since:
                known = self._refresh()  # its names changed since the last walk
            return key in known or EVERY_FILE in known

    def path(self, path: str | Path) -> bool:
        """Whether reading `path` (absolute, or under the workspace) reads a secret file:
        by its name, its target or its inode."""
        return self(str(path)) or self.linked(path)

    def linked(self, path: str | Path) -> bool:
        """Whether the file at `path` is another name (hard link) of a secret file."""
        try:
            return self.opened(os.stat(os.path.join(self.root, path)))
        except OSError:
            return False

    def covering(self) -> tuple[list[str], list[str]]:
        """(read-only entries: every `.git`/`.swetui`; every name of a secret file in the
        workspace: by name, by a link's target, and the other names of a secret's inode)
        now, for the sandbox to bind read-only and to cover. Raises WorkspaceTooLarge."""
        with self._lock:
            inodes = self._refresh(strict=True)
            named = set(self._named)
            others = [os.path.join(directory, entry.name)
                      for directory, device, entries in self._walked for entry in entries
                      if not entry.link and not entry.is_dir
                      and (device, entry.inode) in inodes
                      and os.path.join(directory, entry.name) not in named]
            return list(self._readonly), [*self._named, *others]

    def named(self) -> list[str]:
        """Every file of the workspace that is a secret by its name or its link's target,
        now (an incremental walk; the home's secrets are not gathered). Raises
        WorkspaceTooLarge."""
        with self._lock:
            return list(self._scan.scan().secrets)

    def _refresh(self, strict: bool = False) -> set[tuple[int, int]]:
        """Walk again (only changed directories are listed) and gather the inodes; the
        lock is held."""
        started = time.time_ns() - CLOCK_SLACK_NS
        try:
            result = self._scan.scan()
        except WorkspaceTooLarge:
            self._inodes = {EVERY_FILE}
            self._since = started
            if strict:
                raise
            return self._inodes
        self._readonly, self._named, self._walked = result.readonly, result.secrets, \
            result.walked
        inodes = set()
        for path in [*self._named, *home_secret_files()]:
            try:
                info = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                inodes.add((info.st_dev, info.st_ino))
        self._inodes = inodes
        self._since = started
        return inodes


@functools.lru_cache(maxsize=16)
def _shared(root: str) -> SecretFiles:
    return SecretFiles(root)


def secret_files(root: str | Path) -> SecretFiles:
    """The workspace's secret rule, one per workspace in this process (the read tools,
    the sandbox, retrieval and the map share its walk)."""
    return _shared(os.path.realpath(root))
