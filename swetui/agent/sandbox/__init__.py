"""The kernel sandbox for shell commands: what it confines, whether this system has it, and
the argv that runs a command through the exec helper (`confine.py`).

Confined, a command can read the machine but write only inside the workspace and a private
temp directory; `.git/` and `.swetui/` are read-only; secret files and credential
directories cannot be read; the network is cut unless `sandbox_network` is set; it cannot
read other processes' environment or memory, nor signal them; and it dies with swetui.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from swetui.agent.tools.sensitive import CREDENTIAL_DIRS, is_secret_file
from swetui.engine.files import TOOL_DIRS

HELPER = Path(__file__).with_name("confine.py")
SETUP_FAILED = 125
SETUP_PREFIX = "swetui-sandbox: "
HOME_SECRETS = (*sorted(CREDENTIAL_DIRS), ".config/gcloud", ".netrc", ".git-credentials",
                ".pypirc", ".npmrc", ".pgpass", ".password-store")
"""Credential files and directories in the user's home, covered inside the sandbox."""
SYSTEM_SECRETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/containerd",
                  "/run/user", "/run/dbus")
"""Sockets a command could use to act outside the sandbox (Landlock does not govern
connecting to a Unix socket by path), covered inside the sandbox."""
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
READ_ONLY_DIRS = (".git", ".swetui", ".hg", ".svn")
MAX_WALK = 50_000
"""Entries looked at when finding secret files to cover; a larger tree is cut short."""


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
                "network": False, "confine": True, "parent": os.getpid()}
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", str(HELPER), json.dumps(spec), "--",
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


def _walk_protected(root: Path) -> tuple[list[str], list[str]]:
    """(read-only directories, secret files) in the workspace, symlinks not followed.

    The per-entry test is a name check (`is_secret_file` on the name alone, plus "inside a
    credential directory"), so a 10,000-file tree costs a scandir walk and little more."""
    readonly: list[str] = []
    secrets: list[str] = []
    seen = 0
    stack: list[tuple[str, bool]] = [(str(root), False)]
    while stack and seen < MAX_WALK:
        directory, in_credentials = stack.pop()
        try:
            with os.scandir(directory) as iterator:
                entries = list(iterator)
        except OSError:
            continue
        seen += len(entries)
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            name = entry.name
            if is_dir and name in READ_ONLY_DIRS:
                readonly.append(entry.path)
            elif in_credentials or is_secret_file(name):
                secrets.append(entry.path)
            elif is_dir and name not in TOOL_DIRS:
                stack.append((entry.path, name in CREDENTIAL_DIRS))
    for name in READ_ONLY_DIRS:  # also a .git *file* (worktrees) or one made later
        path = root / name
        if str(path) not in readonly and path.exists():
            readonly.append(str(path))
    return readonly, secrets


class Sandbox:
    """Runs commands of one workspace confined (or, when asked, unconfined but still tied to
    swetui's life) through the exec helper."""

    def __init__(self, root: Path, *, enabled: bool = True, network: bool = False,
                 cover: tuple[str, ...] = SCRATCH_DIRS) -> None:
        self.root = root.resolve()
        self.enabled = enabled
        self.network = network
        self.cover = cover
        """Shared temp directories replaced by the private one inside the sandbox."""
        self._scratch: Path | None = None

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
        """The argv that runs `shell -c command` through the helper."""
        spec: dict[str, object] = {"workspace": str(self.root), "tmp": str(self.scratch),
                                   "confine": confine, "network": self.network,
                                   "cover": list(self.cover),
                                   "parent": os.getpid()}
        if confine:
            readonly, secrets = _walk_protected(self.root)
            home = Path.home()
            spec["readonly"] = readonly
            spec["hide"] = [*secrets, *(str(home / name) for name in HOME_SECRETS),
                            *SYSTEM_SECRETS]
        return [sys.executable, "-I", "-S", str(HELPER), json.dumps(spec), "--",
                shell, "-c", command]

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
