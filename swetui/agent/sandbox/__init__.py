"""The kernel sandbox for shell commands: what it confines, whether this system has it, and
the argv that runs a command through the exec helper (`confine.py`).

Confined, a command can read the system and its toolchains (not the user's other projects
or data: `readable.py`) but write only inside the workspace and a private temp directory;
`.git/` and `.swetui/` are read-only; secret files (by any name: `secret_files.py`) and
credential directories cannot be read; the network is cut unless `sandbox_network` is set;
it cannot read other processes' environment or memory, nor signal them; and it dies with
swetui.
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

from swetui.agent.sandbox.git_includes import followed
from swetui.agent.sandbox.readable import (
    ETC_SECRETS,
    listable_paths,
    readable_paths,
    shares_home,
)
from swetui.agent.sandbox.scan import MAX_WALK, WorkspaceTooLarge
from swetui.agent.sandbox.scrubbed import (
    SYSTEM_CONFIGS,
    git_configs,
    home_configs,
    scrubbed_copies,
)
from swetui.agent.sandbox.secret_files import SecretFiles, secret_files
from swetui.agent.sandbox.secret_paths import home_secrets

__all__ = ["MAX_WALK", "Sandbox", "SandboxStatus", "SecretFiles", "WorkspaceTooLarge",
           "probe", "probe_in_background", "secret_files", "setup_failure"]

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


def _own_code_dirs() -> list[str]:
    """swetui's package and Python installation: made read-only in the sandbox when they
    live inside the workspace (developing swetui with swetui, a project venv)."""
    package = Path(__file__).resolve().parents[2]
    return sorted({str(package), os.path.realpath(sys.prefix),
                   os.path.realpath(sys.base_prefix), os.path.dirname(INTERPRETER)})


def _own_code_readable(home: str) -> list[str]:
    """`_own_code_dirs` as places a command may read: a Python installed with the home as
    its prefix (`./configure --prefix=$HOME`) grants its library folder, not the home."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = []
    for path in _own_code_dirs():
        if not shares_home(path, home):
            found.append(path)
        elif os.path.isdir(library := os.path.join(path, "lib", version)):
            found.append(library)
    return found


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
        self._scrubbed: Path | None = None
        self._secrets = secret_files(self.root)
        self._extra_secrets = [SecretFiles(path) for path in readable]
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

    @property
    def replaced(self) -> list[str]:
        """Where a confined command sees the sandbox's own files instead of the system's:
        the shared temp directories it covers with the private one (as `mounts.py` does:
        real directories only), its own `/dev`, its own `/proc` (processes outside are
        not there). The only places where the sandbox makes a file look missing."""
        return [*(path for path in self.cover if os.path.isdir(path) and
                  not os.path.islink(path)), "/dev", "/proc"]

    @property
    def scrubbed(self) -> Path:
        """Where the copies of configs without their credentials are kept (`scrubbed.py`):
        outside the private temp directory, so a command cannot rewrite them."""
        if self._scrubbed is None or not self._scrubbed.is_dir():
            self._scrubbed = Path(tempfile.mkdtemp(prefix="swetui-scrubbed-"))
        return self._scrubbed

    def argv(self, command: str, shell: str, *, confine: bool) -> list[str]:
        """The argv that runs `shell -c command` through the helper (raises
        WorkspaceTooLarge when confined and the workspace cannot be scanned whole)."""
        spec: dict[str, object] = {"workspace": str(self.root), "tmp": str(self.scratch),
                                   "confine": confine, "network": self.network,
                                   "cover": list(self.cover),
                                   "parent": os.getpid()}
        if confine:
            readonly, secrets = self._secrets.covering()
            self._git_before = {p for p in readonly if os.path.basename(p) == ".git"}
            root = str(self.root)
            own = [path for path in _own_code_dirs()
                   if path == root or path.startswith(root + "/")]
            spec["readonly"] = [*readonly, *own]
            home = os.environ.get("HOME") or str(Path.home())
            readable = readable_paths(root, extra=(*self.readable, *_own_code_readable(home)))
            spec["readable"] = readable
            spec["listable"] = listable_paths(root, home)
            extra = self._extra_covered()
            git_dirs = [*self._git_before, *(path for path in readable
                                             if os.path.isfile(os.path.join(path, "HEAD")))]
            # every config that can carry a credential, and what git's configs include
            configs = followed(home_configs(home), git_configs(git_dirs), home, root)
            spec["replace"], unreadable = scrubbed_copies([*SYSTEM_CONFIGS, *configs.paths],
                                                          self.scrubbed, configs.cut)
            # `~/.gitconfig` → `[include] path = ~/.gitconfig.local`: unreadable, git stops
            spec["readable_files"] = configs.granted
            spec["hide"] = [*secrets, *extra, *unreadable, *home_secrets(), *ETC_SECRETS,
                            *SYSTEM_SECRETS, *(() if self.network else OFFLINE_SECRETS)]
        return [INTERPRETER, "-I", "-S", "-c", HELPER_SOURCE, json.dumps(spec), "--",
                shell, "-c", command]

    def _extra_covered(self) -> list[str]:
        """The secret files in the `sandbox_read` places (raises WorkspaceTooLarge naming
        the entry that is too large to scan)."""
        covered = []
        for rule in self._extra_secrets:
            try:
                covered += rule.covering()[1]
            except WorkspaceTooLarge:
                raise WorkspaceTooLarge(
                    f"sandbox_read entry {rule.root} has more than {MAX_WALK:,} entries to "
                    "scan for secret files; name a smaller folder in the config") from None
        return covered

    def quarantine_new_git(self) -> list[str]:
        """Git metadata a confined command created (`git init`, a planted `.git` file) would
        run its config (core.fsmonitor, hooks) the next time anyone runs git there,
        unconfined. It is moved aside; returns a line per move."""
        try:
            readonly, _ = self._secrets.covering()
            created = {p for p in readonly if os.path.basename(p) == ".git"} - self._git_before
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
        for folder in (self._scratch, self._scrubbed):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        self._scratch = self._scrubbed = None


def setup_failure(output: str) -> str | None:
    """The helper's own complaint in a command's output, when the sandbox could not start."""
    for line in output.splitlines():
        if line.startswith(SETUP_PREFIX):
            return line.removeprefix(SETUP_PREFIX)
    return None
