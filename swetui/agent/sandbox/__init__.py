"""The kernel sandbox for shell commands: what it confines, whether this system has it, and
the argv that runs a command through the exec helper (`confine.py`).

Confined, a command can read the system and its toolchains (not the user's other projects
or data: `readable.py`) but write only inside the workspace and a private temp directory;
`.git/` and `.swetui/` are read-only; secret files and credential directories cannot be
read; the network is cut unless `sandbox_network` is set; it cannot
read other processes' environment or memory, nor signal them; and it dies with swetui.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from swetui.agent.sandbox.readable import ETC_SECRETS, readable_paths
from swetui.agent.sandbox.secret_paths import (
    home_secret_files,
    home_secrets,
    inodes_of,
    secret_target,
)
from swetui.agent.sensitive import CREDENTIAL_DIRS, is_secret_file

HELPER = Path(__file__).with_name("confine.py")
HELPER_MODULES = ("kernel", "mounts")
"""The modules `confine.py` imports, in order (standard library only, like it)."""


def helper_source() -> str:
    """The exec helper as one `-c` program: each of `HELPER_MODULES` runs as its own module
    (registered under its full name, so `confine.py`'s imports find it with no swetui on the
    path), then `confine.py` runs as `__main__`."""
    lines = ["import sys"]
    for name in HELPER_MODULES:
        module = f"{__name__}.{name}"
        source = HELPER.with_name(f"{name}.py").read_text(encoding="utf-8")
        lines += [f"_module = sys.modules[{module!r}] = type(sys)({module!r})",
                  f"exec(compile({source!r}, {name + '.py'!r}, 'exec'), _module.__dict__)"]
    main = HELPER.read_text(encoding="utf-8")
    lines.append(f"exec(compile({main!r}, 'confine.py', 'exec'), {{'__name__': '__main__'}})")
    return "\n".join(lines)


HELPER_SOURCE = helper_source()
"""Read once, at import (before any command runs), and passed with `-c`: a command that
rewrites the helper's files in a workspace holding swetui's own source changes nothing."""
INTERPRETER = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
"""The real interpreter binary, resolved at import: a venv's `bin/python` link inside the
workspace could be replaced by a command."""
SETUP_FAILED = 125
SETUP_PREFIX = "swetui-sandbox: "
SYSTEM_SECRETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/containerd",
                  "/run/user", "/run/dbus", "/run/systemd", "/run/screen", "/var/run/screen")
"""Sockets a command could use to act outside the sandbox (Landlock does not govern
connecting to a Unix socket by path), covered inside the sandbox."""
OFFLINE_SECRETS = ("/run", "/var/run")
"""Covered whole when the network is cut (then nothing there is needed to resolve names)."""
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
READ_ONLY_NAMES = frozenset({".git", ".swetui", ".hg", ".svn"})
MAX_WALK = 500_000
"""Entries a workspace may have: past this the sandbox refuses to start (fail closed)
rather than leave the secret files it did not reach readable."""


@dataclass(frozen=True)
class Entry:
    """One name in a directory listing: whether it is a directory (links followed), a
    link, and its inode (for finding another name of a secret file)."""

    name: str
    is_dir: bool
    link: bool
    inode: int


def _hard_links(secrets: list[str], walked: list[tuple[str, int, list[Entry]]]) -> list[str]:
    """Other names, in the walked directories, of the secret files that have more than one
    (a hard link `notes.txt` of `.env` reads as `.env`; the covering is by name)."""
    inodes = inodes_of([*secrets, *home_secret_files()])
    if not inodes:
        return []
    known = set(secrets)
    return [os.path.join(directory, entry.name) for directory, device, entries in walked
            for entry in entries if not entry.link and not entry.is_dir
            and (device, entry.inode) in inodes
            and os.path.join(directory, entry.name) not in known]


class WorkspaceTooLarge(RuntimeError):
    """The workspace has more entries than the secret-file walk may visit."""


def _own_code_dirs() -> list[str]:
    """swetui's package and Python installation: made read-only in the sandbox when they
    live inside the workspace (developing swetui with swetui, a project venv)."""
    package = Path(__file__).resolve().parents[2]
    return sorted({str(package), os.path.realpath(sys.prefix),
                   os.path.realpath(sys.base_prefix), os.path.dirname(INTERPRETER)})


@dataclass(frozen=True)
class SandboxStatus:
    """Whether commands can be confined here, and a line to show the user."""

    available: bool
    detail: str


_probed: list[SandboxStatus] = []
_probe_lock = threading.Lock()


def probe() -> SandboxStatus:
    """Whether this system can confine commands (tried once per process, then remembered)."""
    with _probe_lock:
        if not _probed:
            _probed.append(_probe())
        return _probed[0]


def probe_in_background() -> None:
    """Start the probe now so the first command does not wait for it."""
    if not _probed:
        threading.Thread(target=probe, name="swetui-sandbox-probe", daemon=True).start()


def _probe() -> SandboxStatus:
    """Run the helper once, confined, on a scratch directory: the only honest test."""
    if not sys.platform.startswith("linux"):
        return SandboxStatus(False, f"no kernel sandbox on {sys.platform}")
    with tempfile.TemporaryDirectory(prefix="swetui-probe-") as scratch:
        root = Path(scratch, "ws")
        root.mkdir()
        spec = {"workspace": str(root), "tmp": scratch, "readonly": [], "hide": [],
                "network": False, "confine": True, "parent": os.getpid(),
                "readable": readable_paths(str(root))}
        try:
            done = subprocess.run(
                [INTERPRETER, "-I", "-S", "-c", HELPER_SOURCE, json.dumps(spec), "--",
                 "/bin/sh", "-c", "echo probe > ok"],
                cwd=root, capture_output=True, text=True, timeout=30,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return SandboxStatus(False, f"the sandbox helper did not run ({exc})")
        if done.returncode != 0 or not (root / "ok").exists():
            reason = done.stderr.strip().removeprefix(SETUP_PREFIX) or \
                f"exit {done.returncode}"
            return SandboxStatus(False, f"the kernel refused the sandbox ({reason})")
    return SandboxStatus(True, "Landlock + namespaces")


class WorkspaceScan:
    """The workspace's read-only entries and secret files, kept between commands: each
    directory is listed again only when its mtime changed (a stat instead of a listing), so
    a scan before and after every command stays cheap on a large tree. Symlinked
    directories are followed once; nothing is skipped (secrets hide in node_modules too).
    A secret is found whatever name reaches it: a link is judged by its target, and a hard
    link to a secret file's inode is a secret file too."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._listing: dict[str, tuple[int, int, list[Entry]]] = {}

    def _entries(self, directory: str) -> tuple[int, list[Entry]]:
        """(device, entries) of a directory, from the cache while it is unchanged."""
        try:
            info = os.stat(directory)
        except OSError:
            return 0, []
        cached = self._listing.get(directory)
        if cached is not None and cached[0] == info.st_mtime_ns:
            return cached[1], cached[2]
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
            return 0, []
        self._listing[directory] = (info.st_mtime_ns, info.st_dev, entries)
        return info.st_dev, entries

    def scan(self) -> tuple[list[str], list[str]]:
        """(read-only entries: every `.git`/`.swetui` at any depth, files too; secret files
        and directories, links to them and hard links of them). Raises WorkspaceTooLarge
        past MAX_WALK entries."""
        readonly: list[str] = []
        secrets: list[str] = []
        seen = 0
        visited: set[str] = set()
        walked: list[tuple[str, int, list[Entry]]] = []
        stack: list[tuple[str, bool]] = [(self.root, False)]
        while stack:
            directory, in_credentials = stack.pop()
            real = os.path.realpath(directory)
            if real in visited:
                continue
            visited.add(real)
            device, entries = self._entries(directory)
            walked.append((directory, device, entries))
            seen += len(entries)
            if seen > MAX_WALK:
                raise WorkspaceTooLarge(f"the workspace has more than {MAX_WALK:,} entries to "
                                        "scan for secret files")
            for entry in entries:
                path = os.path.join(directory, entry.name)
                if entry.name in READ_ONLY_NAMES and not entry.link:
                    readonly.append(path)
                elif in_credentials or is_secret_file(entry.name) or (
                        entry.link and secret_target(path, self.root)):
                    secrets.append(path)
                elif entry.is_dir:
                    stack.append((path, entry.name in CREDENTIAL_DIRS))
        return readonly, secrets + _hard_links(secrets, walked)

    def git_entries(self) -> set[str]:
        """Every `.git` (directory or file) in the workspace now."""
        readonly, _ = self.scan()
        return {path for path in readonly if os.path.basename(path) == ".git"}


class SecretHardLinks:
    """The other names (hard links) of the workspace's secret files: `path in links` asks
    whether a regular file is one. The workspace is walked only when a file with several
    names is asked about (rare: pnpm stores, backups), once; one too large to walk makes
    every such file count."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._inodes: set[tuple[int, int]] | None = None

    def __contains__(self, path: object) -> bool:
        try:
            info = os.stat(str(path))
        except OSError:
            return False
        if info.st_nlink < 2 or not stat.S_ISREG(info.st_mode):
            return False
        if self._inodes is None:
            self._inodes = self._secret_inodes()
        return self._inodes == {(-1, -1)} or (info.st_dev, info.st_ino) in self._inodes

    def _secret_inodes(self) -> set[tuple[int, int]]:
        try:
            secrets = WorkspaceScan(self.root).scan()[1]
        except WorkspaceTooLarge:
            return {(-1, -1)}
        return inodes_of([*secrets, *home_secret_files()])


def secret_exclusion(root: Path) -> Callable[[str], bool]:
    """Whether retrieval must not read the workspace path `rel`: a secret file by its name,
    or another name (a hard link) of one (`notes.txt` sharing `.env`'s inode)."""
    links = SecretHardLinks(root)

    def excluded(rel: str) -> bool:
        return is_secret_file(rel) or os.path.join(root, rel) in links
    return excluded


class Sandbox:
    """Runs commands of one workspace confined (or, when asked, unconfined but still tied to
    swetui's life) through the exec helper."""

    def __init__(self, root: Path, *, enabled: bool = True, network: bool = False,
                 cover: tuple[str, ...] = SCRATCH_DIRS, readable: tuple[str, ...] = ()) -> None:
        self.root = root.resolve()
        self.enabled = enabled
        self.network = network
        self.readable = readable
        """Places outside the workspace commands may read besides the system and the
        toolchains (`sandbox_read`)."""
        self.cover = cover
        """Shared temp directories replaced by the private one inside the sandbox."""
        self._scratch: Path | None = None
        self._scan = WorkspaceScan(self.root)
        self._extra_scans = [WorkspaceScan(Path(path)) for path in readable]
        self._git_before: set[str] = set()

    @property
    def status(self) -> SandboxStatus:
        if not self.enabled:
            return SandboxStatus(False, "turned off in the config (sandbox = \"off\")")
        return probe()

    @property
    def available(self) -> bool:
        return self.status.available

    @property
    def scratch(self) -> Path:
        """The private temp directory: `/tmp` as confined commands see it."""
        if self._scratch is None or not self._scratch.is_dir():
            self._scratch = Path(tempfile.mkdtemp(prefix="swetui-sandbox-"))
        return self._scratch

    def argv(self, command: str, shell: str, *, confine: bool) -> list[str]:
        """The argv that runs `shell -c command` through the helper (raises
        WorkspaceTooLarge when confined and the workspace cannot be scanned whole)."""
        spec: dict[str, object] = {"workspace": str(self.root), "tmp": str(self.scratch),
                                   "confine": confine, "network": self.network,
                                   "cover": list(self.cover),
                                   "parent": os.getpid()}
        if confine:
            readonly, secrets = self._scan.scan()
            self._git_before = {p for p in readonly if os.path.basename(p) == ".git"}
            root = str(self.root)
            own = [path for path in _own_code_dirs()
                   if path == root or path.startswith(root + "/")]
            spec["readonly"] = [*readonly, *own]
            spec["readable"] = readable_paths(root, extra=(*self.readable, *_own_code_dirs()))
            extra = [path for scan in self._extra_scans for path in scan.scan()[1]]
            spec["hide"] = [*secrets, *extra, *home_secrets(), *ETC_SECRETS,
                            *SYSTEM_SECRETS, *(() if self.network else OFFLINE_SECRETS)]
        return [INTERPRETER, "-I", "-S", "-c", HELPER_SOURCE, json.dumps(spec), "--",
                shell, "-c", command]

    def quarantine_new_git(self) -> list[str]:
        """Git metadata a confined command created (`git init`, a planted `.git` file) would
        run its config (core.fsmonitor, hooks) the next time anyone runs git there,
        unconfined. It is moved aside; returns a line per move."""
        try:
            created = self._scan.git_entries() - self._git_before
        except WorkspaceTooLarge:
            return []
        moved = []
        for path in sorted(created):
            target = f"{path}.swetui-quarantine"
            number = 1
            while os.path.lexists(target):
                number += 1
                target = f"{path}.swetui-quarantine-{number}"
            try:
                os.rename(path, target)
            except OSError as exc:
                moved.append(f"{os.path.relpath(path, self.root)}: could not be moved aside "
                             f"({exc.strerror}); do not run git there before checking it")
                continue
            moved.append(f"{os.path.relpath(path, self.root)} → "
                         f"{os.path.relpath(target, self.root)}")
        return moved

    def close(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


def setup_failure(output: str) -> str | None:
    """The helper's own complaint in a command's output, when the sandbox could not start."""
    for line in output.splitlines():
        if line.startswith(SETUP_PREFIX):
            return line.removeprefix(SETUP_PREFIX)
    return None
