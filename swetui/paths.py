"""Where swetui keeps things: the user's XDG directories and the workspace's `.swetui/`.

Directories are created on demand, never at import.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import IO

WORKSPACE_DIR = ".swetui"


def config_home() -> Path:
    """`$XDG_CONFIG_HOME/swetui` (default `~/.config/swetui`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "swetui"


def state_home() -> Path:
    """`$XDG_STATE_HOME/swetui` (default `~/.local/state/swetui`): what swetui learns and
    keeps across workspaces (per-model token calibration)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "swetui"


def user_config_file() -> Path:
    return config_home() / "config.toml"


def user_themes_dir() -> Path:
    return config_home() / "themes"


class WorkspacePaths:
    """The paths of one workspace (a repository the user opened)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.dir = self.root / WORKSPACE_DIR

    @property
    def sessions(self) -> Path:
        return self.dir / "sessions"

    @property
    def logs(self) -> Path:
        return self.dir / "logs"

    @property
    def memory(self) -> Path:
        return self.dir / "memory"

    @property
    def session_notes(self) -> Path:
        return self.memory / "session_notes.md"

    @property
    def config_file(self) -> Path:
        return self.dir / "config.toml"

    @property
    def checkpoints(self) -> Path:
        return self.dir / "checkpoints"

    @property
    def blobs(self) -> Path:
        return self.dir / "blobs"

    @property
    def handoffs(self) -> Path:
        return self.dir / "handoffs"

    def ensure(self, path: Path) -> Path:
        """Create directory `path` inside `.swetui/` (and the folders on the way) 0700, with
        `.swetui/.gitignore`; raises OSError when the workspace is read-only."""
        return private_dir(path)

    def writable(self) -> bool:
        """True when `.swetui/` exists or can be created and written. An existing one is made
        private on the way (an ignore file, 0700/0600): older versions left it open. A
        `.swetui` that is a symbolic link is never used: writes would land where it points."""
        if self.dir.is_symlink():
            return False
        try:
            self.ensure(self.dir)
            if not (self.dir / GITIGNORE).exists():
                tighten(self.dir)
                write_gitignore(self.dir)
        except OSError:
            return False
        return os.access(self.dir, os.W_OK)


GITIGNORE = ".gitignore"
IGNORE_ALL = "*\n"
"""`.swetui/.gitignore`: nothing in it (the ignore file included) belongs in the repository."""
DIR_MODE = 0o700
FILE_MODE = 0o600


def is_private(path: Path) -> bool:
    """Whether `path` lies inside a `.swetui/` folder: swetui's own, 0600."""
    return WORKSPACE_DIR in Path(path).parent.parts


def write_gitignore(directory: Path) -> None:
    """`directory/.gitignore` ignoring everything, created 0600 if missing."""
    try:
        fd = os.open(directory / GITIGNORE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | os.O_CLOEXEC, FILE_MODE)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(IGNORE_ALL)


def linked_folder(path: Path) -> Path | None:
    """The first folder from the workspace's `.swetui` (the nearest in `path`) down to
    `path` that is a symbolic link, or None: a cloned workspace can ship `.swetui/sessions
    -> /anywhere`, and swetui would write its session logs there."""
    parts = Path(path).parts
    if WORKSPACE_DIR not in parts:
        return None
    top = len(parts) - 1 - parts[::-1].index(WORKSPACE_DIR)
    for end in range(top + 1, len(parts) + 1):
        if os.path.islink(folder := Path(*parts[:end])):
            return folder
    return None


def private_dir(path: Path) -> Path:
    """Create directory `path` and the missing folders above it 0700 (whatever the umask);
    a `.swetui` created on the way gets its `.gitignore` at once. A folder of `.swetui`
    that is a link is never used (OSError): nothing is written where it points."""
    if (linked := linked_folder(path)) is not None:
        raise OSError(errno.ELOOP, f"{linked} is a link; swetui writes nothing through it")
    missing: list[Path] = []
    current = Path(path)
    while not os.path.lexists(current):
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another swetui
        os.chmod(folder, DIR_MODE)
        if folder.name == WORKSPACE_DIR:
            write_gitignore(folder)
    if not Path(path).is_dir():
        raise NotADirectoryError(f"{path} is not a directory")
    return Path(path)


def tighten(directory: Path) -> None:
    """Make every folder under `directory` 0700 and every file 0600 (links are left alone,
    never followed): what an older swetui wrote with the umask's modes."""
    for folder, dirnames, filenames in os.walk(directory):
        for name in [*dirnames, *filenames, ""]:
            path = os.path.join(folder, name) if name else folder
            try:
                info = os.lstat(path)
                if stat.S_ISDIR(info.st_mode):
                    want = DIR_MODE
                elif stat.S_ISREG(info.st_mode):
                    want = FILE_MODE
                else:
                    continue
                if stat.S_IMODE(info.st_mode) != want:
                    os.chmod(path, want, follow_symlinks=False)
            except (OSError, NotImplementedError):
                continue


def open_private_append(path: Path) -> IO[str]:
    """`path` opened for appending text, created 0600 in a private folder; an existing file
    is made 0600. A FIFO, device or link there is refused (OSError), never waited on."""
    private_dir(path.parent)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(path, flags, FILE_MODE)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, f"{path.name} is not a regular file")
        if stat.S_IMODE(info.st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "a", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace `path` with `data` through a 0600 temp file and a rename (a crash leaves the
    old or the new file), in a private folder."""
    private_dir(path.parent)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
