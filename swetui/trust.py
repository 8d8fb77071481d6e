"""Trust of what a repository ships (DESIGN §4).

A cloned repository can carry a `.swetui/config.toml` (it can set `mode = "auto"` and allow
rules) and an `.mcp.json` (it can start programs). swetui applies them only after the user
has trusted that workspace's versions once. Trust is remembered in the user's config
directory (`trusted.toml`, 0600), keyed by the workspace's real path, as the sha256 of each
trusted file's content: a changed file is untrusted again.

A shipped file is read only when it is a regular file whose real path is inside the
workspace (a link leading out, a FIFO or a device is reported and never used), without
blocking, and at most `MAX_BYTES`. Callers use the bytes that were hashed, never a second
read, so what was checked is what applies.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets
import tomllib
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from swetui.files import NotRegularFile, read_regular, read_small_text
from swetui.paths import config_home

CONFIG = ".swetui/config.toml"
MCP = ".mcp.json"
SHIPPED_FILES: tuple[str, ...] = (CONFIG, MCP)
"""Workspace files that change what swetui may do, so they need the user's trust."""
MAX_BYTES = 1_000_000

Entries = dict[str, dict[str, str]]


class TrustError(Exception):
    """The trust store cannot be read or written; the message is fit to show as is."""


@dataclass(frozen=True)
class ShippedFile:
    """One repository-shipped file as it is now on disk."""

    name: str
    """Workspace-relative name, e.g. `.swetui/config.toml`."""
    path: Path
    content: bytes | None
    """The bytes read (and hashed); None when the file cannot be used."""
    digest: str | None
    """`sha256:<hex>` of `content`."""
    trusted: bool
    problem: str | None = None
    """Why the file cannot be used at all (a link out of the workspace, not a regular file)."""

    @property
    def usable(self) -> bool:
        """Trusted and readable: its settings apply."""
        return self.trusted and self.content is not None


@dataclass(frozen=True)
class TrustState:
    """The shipped files present in a workspace and whether each is trusted."""

    root: Path
    files: tuple[ShippedFile, ...]
    store_problem: str | None = None
    """Set when the trust store could not be read (then nothing counts as trusted)."""

    def file(self, name: str) -> ShippedFile | None:
        return next((shipped for shipped in self.files if shipped.name == name), None)

    @property
    def untrusted(self) -> tuple[ShippedFile, ...]:
        return tuple(shipped for shipped in self.files if not shipped.trusted)

    def is_trusted(self, name: str) -> bool:
        """True when `name` is absent or trusted: nothing of it applies unasked."""
        shipped = self.file(name)
        return shipped is None or shipped.trusted

    def trusted_content(self, name: str) -> bytes | None:
        """The content of `name` when it is present and trusted, else None."""
        shipped = self.file(name)
        return shipped.content if shipped is not None and shipped.usable else None


def digest_of(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def workspace_key(root: Path) -> str:
    """The trust store's key for a workspace: its real path."""
    return str(root.resolve())


def read_shipped(root: Path, name: str) -> tuple[bytes | None, str | None]:
    """`(content, None)`, `(None, None)` when absent, or `(None, problem)`.

    Only a regular file whose real path is inside the workspace is read; opening never
    blocks (a FIFO is refused, not waited on)."""
    real_root = root.resolve()
    path = real_root / name
    if not os.path.lexists(path):
        return None, None
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None, "a link that leads nowhere"
    if not real.is_relative_to(real_root):
        return None, f"a link to {real}, outside the workspace: swetui does not use it"
    try:
        # No link is followed: one swapped in after the check above is refused.
        data, _size = read_regular(real, MAX_BYTES + 1, name=name, follow_symlinks=False)
    except NotRegularFile:
        return None, "not a regular file: swetui does not use it"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if len(data) > MAX_BYTES:
        return None, f"larger than {MAX_BYTES:,} bytes: swetui does not use it"
    return data, None


class TrustStore:
    """The user's record of trusted workspace files (`$XDG_CONFIG_HOME/swetui/trusted.toml`)."""

    def __init__(self, file: Path | None = None) -> None:
        self.file = file if file is not None else config_home() / "trusted.toml"

    # -- reading -----------------------------------------------------------------------------

    def entries(self) -> Entries:
        """Every trusted workspace: real path → {file name → digest}."""
        try:
            text = read_small_text(self.file)
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise TrustError(f"{self.file}: cannot be read ({exc})") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise TrustError(f"{self.file}: not valid TOML: {exc}") from None
        workspaces = data.get("workspaces", {})
        if not isinstance(workspaces, dict):
            raise TrustError(f"{self.file}: workspaces: expected a table")
        entries: Entries = {}
        for key, files in workspaces.items():
            if isinstance(files, dict):
                entries[key] = {name: value for name, value in files.items()
                                if isinstance(value, str)}
        return entries

    def state(self, root: Path, names: tuple[str, ...] = SHIPPED_FILES) -> TrustState:
        """Which of `names` the workspace ships, and whether each is trusted as it is now."""
        problem = None
        try:
            trusted = self.entries().get(workspace_key(root), {})
        except TrustError as exc:
            trusted, problem = {}, str(exc)
        files = []
        for name in names:
            content, why = read_shipped(root, name)
            if content is None and why is None:
                continue
            digest = digest_of(content) if content is not None else None
            files.append(ShippedFile(name=name, path=root.resolve() / name, content=content,
                                     digest=digest, problem=why,
                                     trusted=digest is not None and trusted.get(name) == digest))
        return TrustState(root=root.resolve(), files=tuple(files), store_problem=problem)

    # -- writing -----------------------------------------------------------------------------

    def trust(self, state: TrustState, names: Collection[str] | None = None) -> TrustState:
        """Trust the files of `state` (or those of them in `names`) exactly as they were
        read, which is what the user saw; files already trusted stay trusted."""
        usable = {shipped.name: shipped.digest for shipped in state.files
                  if shipped.digest and (names is None or shipped.name in names
                                         or shipped.trusted)}

        def change(entries: Entries) -> None:
            entries[workspace_key(state.root)] = dict(usable)

        self._update(change)
        return self.state(state.root)

    def record(self, root: Path, name: str, digest: str) -> None:
        """Trust one file's new content (swetui wrote it on the user's behalf)."""
        def change(entries: Entries) -> None:
            entries.setdefault(workspace_key(root), {})[name] = digest

        self._update(change)

    def revoke(self, root: Path) -> bool:
        """Forget the workspace; False when it was not trusted."""
        removed = False

        def change(entries: Entries) -> None:
            nonlocal removed
            removed = entries.pop(workspace_key(root), None) is not None

        self._update(change)
        return removed

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time: two swetui processes must not lose each other's trust."""
        self.file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.file.with_name(f".{self.file.name}.lock"), os.O_RDWR | os.O_CREAT,
                     0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _update(self, change: Callable[[Entries], None]) -> None:
        try:
            with self._locked():
                entries = self.entries()  # raises rather than overwrite what it cannot read
                change(entries)
                data = {"workspaces": {key: files for key, files in sorted(entries.items())
                                       if files}}
                temp = self.file.with_name(f".{self.file.name}.{secrets.token_hex(4)}.tmp")
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    with os.fdopen(fd, "wb") as handle:
                        handle.write(tomli_w.dumps(data).encode("utf-8"))
                        handle.flush()
                        os.fsync(handle.fileno())
                    os.replace(temp, self.file)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(temp)
                    raise
        except OSError as exc:
            raise TrustError(f"{self.file}: cannot be written ({exc.strerror or exc})") from None


def trust_state(root: Path, store: TrustStore | None = None) -> TrustState:
    """The shipped files of `root` and whether each is trusted (the user's store)."""
    return (store or TrustStore()).state(root)
