"""Confinement to the workspace by real path, the read ledger, and atomic writes.

Every path a tool touches goes through `WorkspaceFiles.resolve`, which resolves symlinks before
checking containment: `../`, absolute paths and symlinks that lead outside are refused.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from swetui.agent.tools.base import ToolError
from swetui.files import looks_binary, open_regular

# Directories no search descends into: VCS data, our own state, environments, caches.
IGNORED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".swetui", ".venv", "node_modules", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox",
})
HASH_LIMIT = 64 * 1024 * 1024
"""Files larger than this are not hashed into the ledger (and cannot be edited)."""


class WorkspaceFiles:
    """The workspace's files as the tools reach them: the real root and the rules for
    reaching files inside it (`swetui.engine.workspace.Workspace` is the open session)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))

    def resolve(self, path: str | None) -> tuple[Path, str]:
        """(real absolute path, workspace-relative posix path) for `path`, or `ToolError`."""
        raw = "." if path is None or path.strip() == "" else path.strip()
        if "\x00" in raw:
            raise ToolError(f"invalid path {raw!r}: it contains a NUL byte",
                            summary="invalid path")
        candidate = Path(raw) if os.path.isabs(raw) else self.root / raw
        # realpath resolves every symlink on the way, including a final dangling one.
        real = Path(os.path.realpath(candidate))
        if real != self.root and self.root not in real.parents:
            how = "through a symlink " if self._via_symlink(candidate) else ""
            raise ToolError(
                f"{raw} leads {how}outside the workspace ({self.root}); tools only reach "
                "files inside it. Use a path relative to the workspace root.",
                summary=f"refused: {raw} is outside the workspace",
            )
        return real, self.relative(real)

    def _via_symlink(self, candidate: Path) -> bool:
        lexical = Path(os.path.normpath(candidate))
        return lexical == self.root or self.root in lexical.parents

    def relative(self, real: Path) -> str:
        rel = real.relative_to(self.root).as_posix()
        return "." if rel == "" else rel


@dataclass(frozen=True)
class FileStamp:
    """What the agent knows of a file: when it was last seen and its content hash."""

    mtime_ns: int
    sha256: str


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hash_file(path: Path) -> str | None:
    """SHA-256 of the file, streamed; None when it is too large to hash."""
    with open_regular(path) as handle:
        if os.fstat(handle.fileno()).st_size > HASH_LIMIT:
            return None
        digest = hashlib.sha256()
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class ReadLedger:
    """The version of each file the agent last read or wrote, to refuse stale edits."""

    def __init__(self) -> None:
        self._stamps: dict[Path, FileStamp] = {}

    def record(self, real: Path, sha256: str | None = None) -> FileStamp | None:
        """Remember the file as it is on disk now (`sha256` when the caller has it)."""
        try:
            mtime = real.stat().st_mtime_ns
            digest = sha256 or hash_file(real)
        except OSError:
            self._stamps.pop(real, None)
            return None
        if digest is None:
            self._stamps.pop(real, None)
            return None
        stamp = FileStamp(mtime, digest)
        self._stamps[real] = stamp
        return stamp

    def forget(self, real: Path) -> None:
        self._stamps.pop(real, None)

    def get(self, real: Path) -> FileStamp | None:
        return self._stamps.get(real)

    def is_stale(self, real: Path, current: bytes) -> bool:
        """True when the agent read this file and its content has changed since."""
        stamp = self._stamps.get(real)
        # Compare content, not mtime: a `touch` is not a change the model must re-read.
        return stamp is not None and stamp.sha256 != sha256_bytes(current)


@dataclass(frozen=True)
class TextFile:
    """A text file decoded for editing, with what is needed to write it back alike."""

    text: str
    """Content with '\\n' line endings."""
    newline: str
    bom: bool

    def encode(self, text: str) -> bytes:
        """`text` (with '\\n' endings) encoded the way this file was."""
        if self.newline == "\r\n":
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        data = text.encode("utf-8")
        return b"\xef\xbb\xbf" + data if self.bom else data


def decode_text(data: bytes, rel: str) -> TextFile:
    """Decode a file for editing; binary and non-UTF-8 files are refused because writing
    them back through text would corrupt them."""
    if looks_binary(data):
        raise ToolError(f"{rel} is a binary file; it cannot be edited as text.",
                        summary=f"refused: {rel} is binary", path=rel)
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{rel} is not valid UTF-8 (byte {exc.start}); editing it as text would "
            "corrupt it. Change it with a bash command (e.g. iconv or sed) instead.",
            summary=f"refused: {rel} is not UTF-8", path=rel) from None
    # Only a file whose every line ends in CRLF is converted; a mixed file keeps its bytes.
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    return TextFile(text=text, newline="\r\n" if crlf else "\n", bom=bom)




def resolve_inside(root: Path, path: str) -> Path:
    """The real path of `path` inside `root`; `ValueError` (with a message fit to show) when
    it leads outside the workspace."""
    try:
        return WorkspaceFiles(root).resolve(path)[0]
    except ToolError as exc:
        raise ValueError(exc.message) from None
