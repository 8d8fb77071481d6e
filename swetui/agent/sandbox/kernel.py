"""The system calls of the sandbox helper (`confine.py`): prctl, mount, unshare, Landlock,
the session keyring, capabilities and loopback. Standard library only: it runs in the
helper's process, without swetui on the path (see `swetui.agent.sandbox.helper_source`).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import signal
import socket
import stat
import struct

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
READ_FILE_ONLY = FS_READ_FILE
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
"""Shared temp directories, replaced by the private one inside the sandbox."""
DEVICE_NAMES = ("null", "zero", "full", "random", "urandom", "tty")
DEVICES = tuple(f"/dev/{name}" for name in DEVICE_NAMES if name != "tty")
COVER = ".swetui-cover"
"""An empty, unreadable file in the private /dev, bound over secret files."""

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_void_p]


class SetupError(Exception):
    """The sandbox could not be set up; the message says which step failed."""


def check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(code)}")
    return result


def prctl(option: int, arg: int = 0) -> int:
    return int(libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0),
                           ctypes.c_ulong(0)))


def mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    result = libc.mount(source.encode() if source else None, target.encode(),
                         fstype.encode() if fstype else None, flags,
                         data.encode() if data else None)
    check(result, f"mount {target}")


# -- Landlock ----------------------------------------------------------------------------


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when there is none."""
    version = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def landlock_restrict(writable: list[str], devices: list[str], readable: list[str],
                      listable: list[str] | None = None, files: list[str] | None = None) -> int:
    """Confine this process (and what it execs) to reading and executing only under
    `readable` (and the private `/dev`), reading the regular files among `files` (a
    directory or a link there grants nothing), listing (not reading) the directories under
    `listable`, and writing only in `writable`. Returns the ABI used."""
    abi = landlock_abi()
    if abi < 1:
        raise SetupError("Landlock is not available in this kernel")
    handled = fs_rights(abi)
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    # struct landlock_ruleset_attr { u64 handled_access_fs, handled_access_net, scoped; }
    attr = struct.pack("=QQQ", handled, 0, scoped) if abi >= 6 else struct.pack("=QQ",
                                                                                 handled, 0)
    if abi < 4:
        attr = struct.pack("=Q", handled)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = check(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, buffer,
                                   ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    device_rights = FS_READ_FILE | FS_WRITE_FILE | (handled & (FS_TRUNCATE | FS_IOCTL_DEV))
    try:
        grants = [(path, READ_ONLY & handled) for path in [*readable, "/dev"]]
        grants += [(path, handled) for path in writable]
        grants += [(path, FS_READ_DIR) for path in listable or []]
        grants += [(path, device_rights) for path in devices]
        # The sandbox's own pty instance (a fresh devpts: no other terminal is in it).
        grants += [("/dev/pts", device_rights | FS_READ_DIR), ("/dev/pts/ptmx", device_rights)]
        grants += [(path, READ_FILE_ONLY) for path in files or []]
        for path, rights in grants:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC |
                             (os.O_NOFOLLOW if rights == READ_FILE_ONLY else 0))
            except OSError:
                continue  # a device or directory this system does not have
            try:
                if rights == READ_FILE_ONLY and not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue  # no longer a regular file: a directory would grant its tree
                if not os.path.isdir(path):
                    # Directory-only rights on a file make the rule invalid.
                    rights &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE \
                        | FS_IOCTL_DEV
                # struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; }
                # (packed)
                rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
                check(libc.syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset),
                                     ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), rule,
                                     ctypes.c_uint32(0)), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        check(prctl(PR_SET_NO_NEW_PRIVS, 1), "no_new_privs")
        check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset),
                             ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def unshare(flags: int) -> bool:
    """Enter new namespaces; True when a user namespace was made."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(ctypes.c_int(flags | CLONE_NEWUSER)) == 0:
        try:
            write_text("/proc/self/setgroups", "deny")
        except OSError:
            pass
        write_text("/proc/self/uid_map", f"{uid} {uid} 1")
        write_text("/proc/self/gid_map", f"{gid} {gid} 1")
        return True
    first = ctypes.get_errno()
    if libc.unshare(ctypes.c_int(flags)) == 0:  # root where user namespaces are off
        return False
    raise SetupError(f"cannot create namespaces: {os.strerror(first)}")


def loopback_up() -> None:
    """Bring up `lo` in the new network namespace so local servers still work."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def new_session_keyring() -> None:
    """A fresh, empty session keyring: the one inherited from swetui may hold keys."""
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is None or libc.syscall(number, ctypes.c_int(KEYCTL_JOIN_SESSION_KEYRING),
                                       None) < 0:
        raise SetupError("cannot give the command its own session keyring")


def drop_capabilities() -> None:
    for cap in range(64):
        if prctl(PR_CAPBSET_DROP, cap) < 0 and ctypes.get_errno() == errno.EINVAL:
            break
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
