"""What every part that walks or reads the workspace agrees on: which directories are tools'
and version control's own (never the user's work), how a binary file is recognised, and the
one way a file is opened for reading, and the one way swetui writes a file (`atomic_write`).

Every read of a file swetui did not write itself goes through `open_regular`: it refuses
FIFOs, devices, sockets and directories before and after opening, and opens without
blocking, so a `mkfifo` or a link to `/dev/zero` in a workspace can never hang swetui.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Protocol, runtime_checkable

from swetui.paths import FILE_MODE, is_private

TOOL_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"})
"""Version control, virtual environments and tool caches."""

BUILD_DIRS = frozenset({"dist", "build", ".idea"})
"""Build output and editor settings: skipped when searching or listing for a person."""

BINARY_SNIFF = 8192
"""Bytes looked at to decide whether a file is binary."""

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"))


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first block: the test git and grep use."""
    return b"\x00" in head[:BINARY_SNIFF]


def file_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO", "a socket"...), None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


class NotRegularFile(OSError):
    """A path that is not a regular file (FIFO, device, socket, directory, or a symbolic
    link where none may be followed): swetui does not read it."""

    def __init__(self, name: str, kind: str) -> None:
        message = f"{name} is {kind}, not a regular file; not read"
        super().__init__(errno.EINVAL, message)
        self.name = name
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message


@runtime_checkable
class SecretRule(Protocol):
    """Which workspace files may not be read (the agent's `secret_files`): by the name a
    path is asked by and the file it leads to, and by the file actually opened."""

    def __call__(self, rel: str, walked: bool = False) -> bool: ...

    def opened(self, info: os.stat_result) -> bool: ...


class SecretFile(OSError):
    """The file opened is a secret whatever its name (`SecretRule.opened`): not read."""

    def __init__(self, name: str) -> None:
        super().__init__(errno.EACCES, f"{name} may hold secrets; not read")


Refuse = Callable[[os.stat_result], bool]
"""Whether an opened file must not be read, judged on its descriptor's `fstat`."""


def refusal(exclude: Callable[..., bool] | None) -> Refuse | None:
    """The opened-file half of `exclude` when it is a whole `SecretRule` (a plain name
    predicate, as some tests pass, judges names only)."""
    return exclude.opened if isinstance(exclude, SecretRule) else None


def open_regular(path: str | os.PathLike[str], *, name: str | None = None,
                 follow_symlinks: bool = True, refuse: Refuse | None = None) -> BinaryIO:
    """Open a regular file for reading in binary mode, never blocking.

    The path is checked before opening (a device is never opened), opened with `O_NONBLOCK`
    (a FIFO swapped in meanwhile does not wait for a writer) and checked again on the open
    descriptor. `NotRegularFile` (an OSError) names `name` or the path; `follow_symlinks=False`
    refuses a symbolic link as the last component (for paths already resolved). `refuse`
    judges the file opened (`SecretRule.opened`): a name swapped for a hard link of a secret
    after any check by name is still caught, as `SecretFile` (an OSError)."""
    shown = name if name is not None else os.fspath(path)
    try:
        before = os.stat(path, follow_symlinks=follow_symlinks)
    except OSError as exc:
        if exc.errno == errno.ELOOP and follow_symlinks:
            raise NotRegularFile(shown, "a symbolic link loop") from None
        raise
    kind = file_kind(before.st_mode)
    if kind is not None:
        raise NotRegularFile(shown, kind)
    flags = _READ_FLAGS | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # became a link / a socket meanwhile
            raise NotRegularFile(shown, "a symbolic link" if exc.errno == errno.ELOOP
                                 else "a socket") from None
        raise
    try:
        info = os.fstat(fd)
        kind = file_kind(info.st_mode)
        if kind is not None:
            raise NotRegularFile(shown, kind)
        if refuse is not None and refuse(info):
            raise SecretFile(shown)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int | None, *, name: str | None = None,
                 follow_symlinks: bool = True, refuse: Refuse | None = None,
                 ) -> tuple[bytes, int]:
    """At most `limit` bytes (None: all) of a regular file and its size when opened (see
    `open_regular`); a size above `limit` means the data was cut."""
    with open_regular(path, name=name, follow_symlinks=follow_symlinks,
                      refuse=refuse) as handle:
        size = os.fstat(handle.fileno()).st_size
        return handle.read(-1 if limit is None else limit), size


SMALL_FILE_BYTES = 4 * 1024 * 1024
"""Config, rules, themes and swetui's own records are small; anything bigger is refused."""


def read_small_text(path: str | os.PathLike[str], limit: int = SMALL_FILE_BYTES, *,
                    name: str | None = None, follow_symlinks: bool = True) -> str:
    """The whole UTF-8 text of a small regular file (see `open_regular`). A bigger file is
    an OSError (EFBIG) naming the limit; bad UTF-8 raises UnicodeDecodeError."""
    data, size = read_regular(path, limit + 1, name=name, follow_symlinks=follow_symlinks)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes ({size:,})")
    return data.decode("utf-8")


def read_error(name: str, exc: OSError) -> str:
    """One line saying why `name` was not read: the refusal itself for a FIFO or device,
    `name: cannot be read (reason)` otherwise."""
    if isinstance(exc, NotRegularFile):
        return exc.message
    return f"{name}: cannot be read ({exc.strerror or exc})"


def inside(root: Path, path: Path) -> bool:
    """Whether `path` (already resolved) is `root` or lies under it."""
    return path == root or root in path.parents


_TEMP_NAME = ".{name}.swetui-{token}.tmp"


def leftover_temps(path: Path) -> list[Path]:
    """Temp files `atomic_write` left next to `path` when the process died mid-write."""
    pattern = _TEMP_NAME.format(name=glob.escape(path.name), token="*")
    return [temp for temp in path.parent.glob(pattern)
            if stat.S_ISREG(temp.lstat().st_mode)]


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to `path` through a temp file and a rename, so a crash leaves either the
    old or the new file; `mode` keeps the permissions of the file being replaced. A file
    inside `.swetui/` is always 0600, whatever it had."""
    private = is_private(path)
    temp = path.with_name(_TEMP_NAME.format(name=path.name, token=secrets.token_hex(4)))
    # 0o666 lets the umask decide for the user's files, like any new file.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                 FILE_MODE if private else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if private:
            os.chmod(temp, FILE_MODE)
        elif mode is not None:
            os.chmod(temp, mode & 0o7777)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):  # persist the rename itself; not all FS allow it
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def source_lines(text: str) -> list[str]:
    """Lines as the symbol map (tree-sitter) and `read_file` number them: split at line
    feeds only, a CRLF's carriage return dropped. `str.splitlines` also splits at form feeds,
    vertical tabs and Unicode separators, so in a file with a form feed between two
    functions every line after it would be numbered one further than the map says."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def line_count(data: bytes) -> int:
    """How many lines `source_lines` gives for these bytes: one per line feed, one more
    for a last line without its line feed."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
