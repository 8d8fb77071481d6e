"""The confined command's view of the filesystem, built in its new mount namespace by the
sandbox helper (`confine.py`): everything read-only but the workspace and the private temp
directory, `.git`/`.swetui` read-only inside it, secrets covered, a private `/dev`.
Standard library only (see `kernel.py`).
"""

from __future__ import annotations

import ctypes
import os
import struct

from swetui.agent.sandbox.kernel import (
    AT_FDCWD,
    AT_RECURSIVE,
    COVER,
    DEVICE_NAMES,
    MOUNT_ATTR_RDONLY,
    MS_BIND,
    MS_MOVE,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    ST_TO_MS,
    SYS_MOUNT_SETATTR,
    SetupError,
    check,
    libc,
    mount,
)


def locked_flags(path: str) -> int:
    """Mount flags a read-only remount must keep (the kernel refuses to drop them inside a
    user namespace)."""
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in ST_TO_MS.items() if flags & st)


def bind(source: str, target: str, *, readonly: bool, recursive: bool = False) -> None:
    mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
    remount(target, readonly=readonly)


def remount(target: str, *, readonly: bool) -> None:
    """Set a bind mount read-only or read-write, keeping the flags the kernel locks."""
    flags = locked_flags(target) & ~MS_RDONLY
    mount(None, target, None, MS_BIND | MS_REMOUNT | flags | (MS_RDONLY if readonly else 0))


def all_read_only() -> None:
    """Every mount read-only, recursively: Landlock does not govern chmod, chown, utimes
    or xattrs, a read-only mount does."""
    attr = struct.pack("=QQQQ", MOUNT_ATTR_RDONLY, 0, 0, 0)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    check(libc.syscall(SYS_MOUNT_SETATTR, ctypes.c_int(AT_FDCWD), b"/",
                         ctypes.c_uint(AT_RECURSIVE), buffer, ctypes.c_size_t(len(attr))),
           "mount_setattr (read-only root)")


def set_writable(target: str) -> None:
    """Clear the read-only flag of the one mount at `target` (its submounts keep theirs)."""
    attr = struct.pack("=QQQQ", 0, MOUNT_ATTR_RDONLY, 0, 0)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    check(libc.syscall(SYS_MOUNT_SETATTR, ctypes.c_int(AT_FDCWD), target.encode(),
                         ctypes.c_uint(0), buffer, ctypes.c_size_t(len(attr))),
           f"mount_setattr (writable {target})")


def private_dev(stage: str, scratch: str) -> None:
    """A /dev of our own: the harmless devices, a new pty instance, and the cover file.
    Built on a tmpfs mounted at `stage`, then moved onto /dev (so no other terminal, disk
    or console device is reachable)."""
    mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k")
    for name in DEVICE_NAMES:
        node = os.path.join(stage, name)
        os.close(os.open(node, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o666))
        mount(f"/dev/{name}", node, None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, os.path.join(stage, name))
    os.mkdir(os.path.join(stage, "shm"))
    os.mkdir(os.path.join(stage, "pts"))
    try:
        mount("devpts", os.path.join(stage, "pts"), "devpts", MS_NOSUID | MS_NOEXEC,
               "newinstance,ptmxmode=0666,mode=0620")
        os.symlink("pts/ptmx", os.path.join(stage, "ptmx"))
    except SetupError:
        pass  # no ptys inside; nothing else breaks
    cover = os.path.join(stage, COVER)
    os.close(os.open(cover, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0))
    os.chmod(cover, 0)
    mount(stage, "/dev", None, MS_MOVE)
    mount(scratch, "/dev/shm", None, MS_BIND)


def cover_secret(target: str) -> None:
    """Cover a secret file or directory (or a link's target) so reading it fails."""
    if os.path.isdir(target):
        mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
               "mode=000,size=4k")
    else:
        bind(f"/dev/{COVER}", target, readonly=True)


def under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def set_up_mounts(workspace: str, private: str, *, cover: list[str], readonly: list[str],
                  hide: list[str], replace: list[list[str]] | None = None) -> str:
    """Build the command's view of the filesystem: `private` (the session's temp directory)
    over each shared temp directory in `cover`, `readonly` entries bound read-only, each
    original of `replace`'s [copy, original] pairs shown as its copy, `hide` covered;
    returns the command's writable scratch path."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    # The private directory is the staging point of the new /dev (covered meanwhile).
    private_dev(private, private)
    fds = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path in (workspace, private)}
    try:
        covered = []
        for scratch in cover:
            if scratch != "/dev/shm" and os.path.isdir(scratch) and \
                    not os.path.islink(scratch):
                bind(f"/proc/self/fd/{fds[private]}", scratch, readonly=False)
                covered.append(scratch)
        if any(under(workspace, scratch) for scratch in covered):
            # The workspace lived under a directory just covered: put it back in place.
            os.makedirs(workspace, exist_ok=True)
            bind(f"/proc/self/fd/{fds[workspace]}", workspace, readonly=False, recursive=True)
    finally:
        for fd in fds.values():
            os.close(fd)
    scratch_path = "/tmp" if "/tmp" in covered else private
    # Each writable place its own mount, so that only it is made writable again below.
    if not any(under(workspace, scratch) for scratch in covered):
        bind(workspace, workspace, readonly=False)
    if scratch_path == private:
        bind(private, private, readonly=False)
    all_read_only()
    for writable in {workspace, scratch_path, *covered, "/dev/shm"}:
        set_writable(writable)
    for path in readonly:
        if os.path.lexists(path) and not os.path.islink(path):
            bind(path, path, readonly=True, recursive=True)
    for copy, original in replace or []:
        if os.path.isfile(original) and not os.path.islink(original):
            bind(copy, original, readonly=True)
    for path in hide:
        if os.path.exists(path):  # a link is covered at its target; a dangling one is moot
            cover_secret(path)
    return scratch_path
