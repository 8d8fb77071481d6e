"""The exec helper that confines one shell command, run as `python -I confine.py SPEC -- ARGV`.

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
- Landlock: read and execute everywhere, write only in the workspace, the private temp
  directory and a few harmless devices; ptrace and `/proc/<pid>/environ`/`mem` of every
  process outside the sandbox denied; no signals to processes outside (ABI ≥ 6); no mounts.

Unconfined (`confine` false) the supervisor is a child subreaper: whatever the command leaves
behind is adopted by it and stopped, then killed, when the command ends, when swetui asks, or
when swetui dies (a catchable parent-death signal). Setup failures exit with SETUP_FAILED
and a line on stderr that starts with "swetui-sandbox:"; the command is never run
unconfined by mistake.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import signal
import socket
import struct
import sys

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
        scratch: NotRequired[str]
        """The private temp directory as mounted; set by the supervisor itself."""

SETUP_FAILED = 125
PREFIX = "swetui-sandbox: "

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
ST_TO_MS = {1: MS_RDONLY, 2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC, 1024: MS_NOATIME,
            2048: MS_NODIRATIME, 4096: MS_RELATIME}

PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
PR_SET_CHILD_SUBREAPER = 36
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING = 1
PARENT_DIED = signal.SIGUSR2
"""The unconfined supervisor's parent-death signal: catchable, so it can kill the tree."""

SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
READ_ONLY = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
"""Shared temp directories, replaced by the private one inside the sandbox."""
DEVICE_NAMES = ("null", "zero", "full", "random", "urandom", "tty")
DEVICES = tuple(f"/dev/{name}" for name in DEVICE_NAMES if name != "tty")
COVER = ".swetui-cover"
"""An empty, unreadable file in the private /dev, bound over secret files."""

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_void_p]


class SetupError(Exception):
    """The sandbox could not be set up; the message says which step failed."""


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(code)}")
    return result


def _prctl(option: int, arg: int = 0) -> int:
    return int(_libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0),
                           ctypes.c_ulong(0)))


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    result = _libc.mount(source.encode() if source else None, target.encode(),
                         fstype.encode() if fstype else None, flags,
                         data.encode() if data else None)
    _check(result, f"mount {target}")


# -- Landlock ----------------------------------------------------------------------------


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when there is none."""
    version = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def landlock_restrict(writable: list[str], devices: list[str]) -> int:
    """Confine this process (and what it execs) to reading everywhere and writing only in
    `writable`. Returns the ABI used."""
    abi = landlock_abi()
    if abi < 1:
        raise SetupError("Landlock is not available in this kernel")
    handled = _fs_rights(abi)
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    # struct landlock_ruleset_attr { u64 handled_access_fs, handled_access_net, scoped; }
    attr = struct.pack("=QQQ", handled, 0, scoped) if abi >= 6 else struct.pack("=QQ",
                                                                                 handled, 0)
    if abi < 4:
        attr = struct.pack("=Q", handled)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _check(_libc.syscall(SYS_LANDLOCK_CREATE_RULESET, buffer,
                                   ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    device_rights = FS_READ_FILE | FS_WRITE_FILE | (handled & (FS_TRUNCATE | FS_IOCTL_DEV))
    try:
        grants = [("/", READ_ONLY & handled)]
        grants += [(path, handled) for path in writable]
        grants += [(path, device_rights) for path in devices]
        # The sandbox's own pty instance (a fresh devpts: no other terminal is in it).
        grants += [("/dev/pts", device_rights | FS_READ_DIR), ("/dev/pts/ptmx", device_rights)]
        for path, rights in grants:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a device or directory this system does not have
            try:
                if not os.path.isdir(path):
                    # Directory-only rights on a file make the rule invalid.
                    rights &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE \
                        | FS_IOCTL_DEV
                # struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; }
                # (packed)
                rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
                _check(_libc.syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset),
                                     ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), rule,
                                     ctypes.c_uint32(0)), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        _check(_prctl(PR_SET_NO_NEW_PRIVS, 1), "no_new_privs")
        _check(_libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset),
                             ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


# -- namespaces and mounts -------------------------------------------------------------


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _unshare(flags: int) -> bool:
    """Enter new namespaces; True when a user namespace was made."""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(ctypes.c_int(flags | CLONE_NEWUSER)) == 0:
        try:
            _write("/proc/self/setgroups", "deny")
        except OSError:
            pass
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
        return True
    first = ctypes.get_errno()
    if _libc.unshare(ctypes.c_int(flags)) == 0:  # root where user namespaces are off
        return False
    raise SetupError(f"cannot create namespaces: {os.strerror(first)}")


def _locked_flags(path: str) -> int:
    """Mount flags a read-only remount must keep (the kernel refuses to drop them inside a
    user namespace)."""
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in ST_TO_MS.items() if flags & st)


def _bind(source: str, target: str, *, readonly: bool, recursive: bool = False) -> None:
    _mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
    _remount(target, readonly=readonly)


def _remount(target: str, *, readonly: bool) -> None:
    """Set a bind mount read-only or read-write, keeping the flags the kernel locks."""
    flags = _locked_flags(target) & ~MS_RDONLY
    _mount(None, target, None, MS_BIND | MS_REMOUNT | flags | (MS_RDONLY if readonly else 0))


def _all_read_only() -> None:
    """Every mount read-only, recursively: Landlock does not govern chmod, chown, utimes
    or xattrs, a read-only mount does."""
    attr = struct.pack("=QQQQ", MOUNT_ATTR_RDONLY, 0, 0, 0)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    _check(_libc.syscall(SYS_MOUNT_SETATTR, ctypes.c_int(AT_FDCWD), b"/",
                         ctypes.c_uint(AT_RECURSIVE), buffer, ctypes.c_size_t(len(attr))),
           "mount_setattr (read-only root)")


def _set_writable(target: str) -> None:
    """Clear the read-only flag of the one mount at `target` (its submounts keep theirs)."""
    attr = struct.pack("=QQQQ", 0, MOUNT_ATTR_RDONLY, 0, 0)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    _check(_libc.syscall(SYS_MOUNT_SETATTR, ctypes.c_int(AT_FDCWD), target.encode(),
                         ctypes.c_uint(0), buffer, ctypes.c_size_t(len(attr))),
           f"mount_setattr (writable {target})")


def _private_dev(stage: str, scratch: str) -> None:
    """A /dev of our own: the harmless devices, a new pty instance, and the cover file.
    Built on a tmpfs mounted at `stage`, then moved onto /dev (so no other terminal, disk
    or console device is reachable)."""
    _mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k")
    for name in DEVICE_NAMES:
        node = os.path.join(stage, name)
        os.close(os.open(node, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o666))
        _mount(f"/dev/{name}", node, None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, os.path.join(stage, name))
    os.mkdir(os.path.join(stage, "shm"))
    os.mkdir(os.path.join(stage, "pts"))
    try:
        _mount("devpts", os.path.join(stage, "pts"), "devpts", MS_NOSUID | MS_NOEXEC,
               "newinstance,ptmxmode=0666,mode=0620")
        os.symlink("pts/ptmx", os.path.join(stage, "ptmx"))
    except SetupError:
        pass  # no ptys inside; nothing else breaks
    cover = os.path.join(stage, COVER)
    os.close(os.open(cover, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0))
    os.chmod(cover, 0)
    _mount(stage, "/dev", None, MS_MOVE)
    _mount(scratch, "/dev/shm", None, MS_BIND)


def _hide(target: str) -> None:
    """Cover a secret file or directory (or a link's target) so reading it fails."""
    if os.path.isdir(target):
        _mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
               "mode=000,size=4k")
    else:
        _bind(f"/dev/{COVER}", target, readonly=True)


def _loopback_up() -> None:
    """Bring up `lo` in the new network namespace so local servers still work."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _set_up_mounts(spec: Spec) -> str:
    """Build the command's view of the filesystem; returns its writable scratch path."""
    workspace, private = spec["workspace"], spec["tmp"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # The private directory is the staging point of the new /dev (covered meanwhile).
    _private_dev(private, private)
    fds = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path in (workspace, private)}
    try:
        covered = []
        for scratch in spec.get("cover", SCRATCH_DIRS):
            if scratch != "/dev/shm" and os.path.isdir(scratch) and \
                    not os.path.islink(scratch):
                _bind(f"/proc/self/fd/{fds[private]}", scratch, readonly=False)
                covered.append(scratch)
        if any(_under(workspace, scratch) for scratch in covered):
            # The workspace lived under a directory just covered: put it back in place.
            os.makedirs(workspace, exist_ok=True)
            _bind(f"/proc/self/fd/{fds[workspace]}", workspace, readonly=False, recursive=True)
    finally:
        for fd in fds.values():
            os.close(fd)
    scratch_path = "/tmp" if "/tmp" in covered else private
    # Each writable place its own mount, so that only it is made writable again below.
    if not any(_under(workspace, scratch) for scratch in covered):
        _bind(workspace, workspace, readonly=False)
    if scratch_path == private:
        _bind(private, private, readonly=False)
    _all_read_only()
    for writable in {workspace, scratch_path, *covered, "/dev/shm"}:
        _set_writable(writable)
    for path in spec.get("readonly", []):
        if os.path.lexists(path) and not os.path.islink(path):
            _bind(path, path, readonly=True, recursive=True)
    for path in spec.get("hide", []):
        if os.path.exists(path):  # a link is covered at its target; a dangling one is moot
            _hide(path)
    return scratch_path


def _new_session_keyring() -> None:
    """A fresh, empty session keyring: the one inherited from swetui may hold keys."""
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is None or _libc.syscall(number, ctypes.c_int(KEYCTL_JOIN_SESSION_KEYRING),
                                       None) < 0:
        raise SetupError("cannot give the command its own session keyring")


def _drop_capabilities() -> None:
    for cap in range(64):
        if _prctl(PR_CAPBSET_DROP, cap) < 0 and ctypes.get_errno() == errno.EINVAL:
            break
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)


# -- processes -------------------------------------------------------------------------


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _init(spec: Spec, argv: list[str]) -> None:
    """pid 1 of the namespace: mount /proc, confine, run the command, reap, report."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    try:  # a /proc of this namespace: processes outside are not even listed
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except SetupError:
        pass  # Landlock still denies their environ and memory
    _new_session_keyring()
    landlock_restrict([spec["workspace"], spec["scratch"]], list(DEVICES))
    _drop_capabilities()
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
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    child = os.fork()
    if child == 0:
        os.execvp(argv[0], argv)

    def stop(signum: int, _frame: object) -> None:
        _kill_tree(signal.SIGKILL if signum == PARENT_DIED else signum)
        if signum == PARENT_DIED:
            os._exit(128 + signal.SIGKILL)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, PARENT_DIED):
        signal.signal(sig, stop)
    _prctl(PR_SET_PDEATHSIG, PARENT_DIED)
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
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if spec.get("parent") and os.getppid() != spec["parent"]:
        return SETUP_FAILED  # swetui died before the death signal was armed
    if not spec.get("confine", True):
        return _run_unconfined(argv)
    flags = CLONE_NEWPID | CLONE_NEWNS | (0 if spec.get("network") else CLONE_NEWNET)
    _unshare(flags)
    spec["scratch"] = _set_up_mounts(spec)
    if not spec.get("network"):
        try:
            _loopback_up()
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
        sys.stderr.write(f"{PREFIX}usage: confine.py SPEC_JSON -- COMMAND...\n")
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
