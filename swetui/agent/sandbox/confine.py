"""The exec helper that confines one shell command: `python -I -S -c SOURCE SPEC -- ARGV`,
where SOURCE is this file with `kernel.py` and `mounts.py` (`helper_source()` in
`__init__.py`: each runs as its own module, then this one as `__main__`).

It is a separate, single-threaded process because `unshare(CLONE_NEWUSER)` fails in a
multi-threaded one (swetui is) and Python 3.11 has no `os.unshare`. Standard library only,
so it starts in milliseconds without importing swetui.

    swetui ─ supervisor (this file; dies with swetui: PR_SET_PDEATHSIG)
               └ init, pid 1 of a new PID namespace (dies with the supervisor; when it
                   dies the kernel kills everything in the namespace)
                   └ bash -c COMMAND  (Landlock-confined, no capabilities, no_new_privs)

Confinement (when `confine` is true), all by the kernel:
- user + mount namespaces: every mount is read-only (so no chmod, chown, utimes or xattr
  outside) except the workspace and the private temp directory; inside the workspace every
  `.git` and `.swetui` (any depth, files too) is a read-only bind mount; secret files and
  credential directories are covered by an unreadable empty file or directory; `/tmp`,
  `/var/tmp` and `/dev/shm` are the session's private temp directory, so other programs'
  sockets and files there are out of reach; `/dev` is private (a few harmless devices and
  a new pty instance: no other terminal);
- a fresh session keyring (the inherited one may hold keys);
- a network namespace with only loopback, unless the network is allowed;
- Landlock: read and execute only the system and the toolchains (`readable.py`), read and
  write only the workspace, the private temp directory and a few harmless devices; ptrace
  and `/proc/<pid>/environ`/`mem` of every process outside the sandbox denied; no signals
  to processes outside (ABI ≥ 6); no mounts.

Unconfined (`confine` false) the supervisor is a child subreaper: whatever the command leaves
behind is adopted by it and stopped, then killed, when the command ends, when swetui asks, or
when swetui dies (a catchable parent-death signal). Setup failures exit with SETUP_FAILED
and a line on stderr that starts with "swetui-sandbox:"; the command is never run
unconfined by mistake.
"""

from __future__ import annotations

import json
import os
import signal
import sys

from swetui.agent.sandbox.kernel import (
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    DEVICES,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    PARENT_DIED,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_PDEATHSIG,
    PREFIX,
    SCRATCH_DIRS,
    SETUP_FAILED,
    SetupError,
    drop_capabilities,
    landlock_abi,
    landlock_restrict,
    loopback_up,
    mount,
    new_session_keyring,
    prctl,
    unshare,
)
from swetui.agent.sandbox.mounts import set_up_mounts

# `typing` stays unimported at run time (the helper starts in milliseconds); mypy reads this.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    class Spec(TypedDict):
        """What swetui asks of the helper: the JSON before `--` (built in `__init__.py`)."""

        workspace: str
        tmp: str
        confine: bool
        network: bool
        parent: int
        cover: NotRequired[list[str]]
        readonly: NotRequired[list[str]]
        hide: NotRequired[list[str]]
        replace: NotRequired[list[list[str]]]
        """[copy, original]: a config shown as its copy without credentials (`scrubbed.py`)."""
        readable: NotRequired[list[str]]
        """Where the command may read outside the workspace (`readable.py`)."""
        readable_files: NotRequired[list[str]]
        """Single files it may read besides: granted only while each is a regular file
        (the files the user's git configs include, `git_includes.user_included`)."""
        listable: NotRequired[list[str]]
        """Directories whose tree may be listed, not read (`readable.listable_paths`)."""
        scratch: NotRequired[str]
        """The private temp directory as mounted; set by the supervisor itself."""


# -- processes -------------------------------------------------------------------------


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _init(spec: Spec, argv: list[str]) -> None:
    """pid 1 of the namespace: mount /proc, confine, run the command, reap, report."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    try:  # a /proc of this namespace: processes outside are not even listed
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except SetupError:
        pass  # Landlock still denies their environ and memory
    new_session_keyring()
    landlock_restrict([spec["workspace"], spec["scratch"]], list(DEVICES),
                      spec.get("readable", []), spec.get("listable", []),
                      spec.get("readable_files", []))
    drop_capabilities()
    os.chdir(spec["workspace"])
    os.environ["TMPDIR"] = spec["scratch"]
    child = os.fork()
    if child == 0:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            sys.stderr.write(f"{PREFIX}cannot run {argv[0]}: {exc.strerror}\n")
            os._exit(127)

    def forward(signum: int, _frame: object) -> None:
        # As pid 1, pass the signal to everything else in the namespace.
        try:
            os.kill(-1, signum)
        except OSError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(127)
        if pid == child:
            os._exit(_exit_code(status))


def _descendants(root: int) -> list[int]:
    """Every process below `root`, from /proc (children that called setsid included)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        parents[int(name)] = int(fields[1])
    found: list[int] = []
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        found += children
        frontier += children
    return found


def _kill_tree(sig: int) -> None:
    """Signal every descendant. For SIGKILL, stop them first, scanning until no new one
    appears, so a fork loop cannot outrun the scan."""
    if sig != signal.SIGKILL:
        for pid in _descendants(os.getpid()):
            _signal(pid, sig)
        return
    stopped: set[int] = set()
    for _ in range(1000):
        fresh = set(_descendants(os.getpid())) - stopped
        if not fresh:
            break
        for pid in fresh:
            _signal(pid, signal.SIGSTOP)
        stopped |= fresh
    for pid in stopped | set(_descendants(os.getpid())):
        _signal(pid, signal.SIGKILL)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _run_unconfined(argv: list[str]) -> int:
    """No namespaces: a subreaper that adopts whatever the command leaves behind and kills
    it when the command ends, when asked to stop, or when swetui dies."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    child = os.fork()
    if child == 0:
        os.execvp(argv[0], argv)

    def stop(signum: int, _frame: object) -> None:
        _kill_tree(signal.SIGKILL if signum == PARENT_DIED else signum)
        if signum == PARENT_DIED:
            os._exit(128 + signal.SIGKILL)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, PARENT_DIED):
        signal.signal(sig, stop)
    prctl(PR_SET_PDEATHSIG, PARENT_DIED)
    code = SETUP_FAILED
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return code
        if pid == child:
            code = _exit_code(status)
            _kill_tree(signal.SIGKILL)  # what it left running in the background


def supervise(spec: Spec, argv: list[str]) -> int:
    """Set up the namespaces, start init, wait for it and return the command's exit code."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if spec.get("parent") and os.getppid() != spec["parent"]:
        return SETUP_FAILED  # swetui died before the death signal was armed
    if not spec.get("confine", True):
        return _run_unconfined(argv)
    flags = CLONE_NEWPID | CLONE_NEWNS | (0 if spec.get("network") else CLONE_NEWNET)
    unshare(flags)
    spec["scratch"] = set_up_mounts(spec["workspace"], spec["tmp"],
                                    cover=spec.get("cover", list(SCRATCH_DIRS)),
                                    readonly=spec.get("readonly", []),
                                    hide=spec.get("hide", []),
                                    replace=spec.get("replace", []))
    if not spec.get("network"):
        try:
            loopback_up()
        except OSError as exc:
            raise SetupError(f"cannot bring up loopback: {exc.strerror}") from None
    os.chdir(spec["workspace"])
    init = os.fork()
    if init == 0:
        try:
            _init(spec, argv)
        except SetupError as exc:
            sys.stderr.write(f"{PREFIX}{exc}\n")
            os._exit(SETUP_FAILED)
        os._exit(SETUP_FAILED)

    def stop(signum: int, _frame: object) -> None:
        try:
            os.kill(init, signum)
        except OSError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    _, status = os.waitpid(init, 0)
    return _exit_code(status)


def main(args: list[str]) -> int:
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write(f"{PREFIX}usage: confine SPEC_JSON -- COMMAND...\n")
        return SETUP_FAILED
    if args[0] == "probe":
        print(json.dumps({"landlock": landlock_abi()}))
        return 0
    try:
        spec: Spec = json.loads(args[0])
        return supervise(spec, args[2:])
    except SetupError as exc:
        sys.stderr.write(f"{PREFIX}{exc}\n")
        return SETUP_FAILED
    except (OSError, ValueError, KeyError) as exc:
        sys.stderr.write(f"{PREFIX}setup failed: {exc}\n")
        return SETUP_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
