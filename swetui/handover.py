"""Keep API keys out of swetui's own environment: a re-exec that hands them over on a pipe.

A command swetui runs can read `/proc/<swetui's pid>/environ` (and `$PPID`'s): removing the
keys from the command's own environment is not enough. So at start, before anything else,
swetui moves every secret variable (see `swetui.secrets`) out of its environment: it writes
them as JSON into a pipe, then execs itself again, same interpreter, same arguments, same
pid, with an environment that lacks them and `SWETUI_SECRETS_FD=<read end>`. The new image
reads the pipe into `secrets.STORE` and closes it. A key is never put on argv.

The data sits in the kernel's pipe buffer across the exec: no second process is involved.
If the exec fails, swetui carries on in-process, keys in its environment, and says so.
Holding keys, swetui then marks itself not dumpable, so another process of the same user
cannot read them out of `/proc/<pid>/mem` either.
"""

from __future__ import annotations

import ctypes
import json
import os
import stat
import sys
import tomllib
from collections.abc import Mapping

from swetui.files import read_small_text
from swetui.git_settings import GIT_CONFIG_VARIABLES, split_git_environment
from swetui.paths import user_config_file
from swetui.secrets import STORE, is_credential_name, is_secret_name, names_a_place

MARKER = "SWETUI_SECRETS_FD"
"""Names the pipe's read end in the re-executed process."""
PR_SET_DUMPABLE = 4
PIPE_LIMIT = 60_000
"""Bytes a pipe surely buffers (Linux: 64 KiB by default); more is not handed over."""


def configured_names(config_file: str | None = None) -> tuple[str, ...]:
    """The user's `secret_env` names (user config only: read before anything else, and a
    repository's own config must not decide what swetui keeps). Errors are left to the
    settings loader, which reports them properly."""
    path = config_file or str(user_config_file())
    try:  # never waits on a FIFO named like the config
        data = tomllib.loads(read_small_text(path))
    except (OSError, ValueError):
        return ()
    names = data.get("secret_env")
    if not isinstance(names, list):
        return ()
    return tuple(name for name in names if isinstance(name, str) and name)


def secret_variables(environ: Mapping[str, str], extra: tuple[str, ...] = ()) -> dict[str, str]:
    """The variables of `environ` that are secrets (by name, or named in `extra`), but for
    git's settings (`GIT_CONFIG_KEY_0` is no key): `split_git_environment` judges those."""
    return {name: value for name, value in environ.items()
            if value and name != MARKER and not GIT_CONFIG_VARIABLES.fullmatch(name) and (
                name in extra or (
                is_secret_name(name, value)
                and (not names_a_place(name) or is_credential_name(name, value))))}


def start(*, execute: bool = True) -> str | None:
    """Fill `secrets.STORE` and, when the environment holds secrets, re-exec without them.
    Returns a warning to show when swetui goes on with keys in its environment; does not
    return at all when the exec succeeds."""
    handed = os.environ.pop(MARKER, None)
    extra = configured_names()
    if handed is not None:
        warning = _receive(handed, extra)
    else:
        found = secret_variables(os.environ, extra)
        git_kept, git_secrets = split_git_environment(os.environ, extra)
        STORE.load(found, redact=extra)
        STORE.register_many(git_secrets)
        warning = _reexec(found, git_kept, git_secrets) \
            if (found or git_secrets) and execute else None
    if STORE.names() or STORE.redacted():
        protect_memory()
    return warning


def protect_memory() -> bool:
    """Mark swetui not dumpable (Linux `PR_SET_DUMPABLE` 0) now that it holds keys: its
    memory and `/proc` files (`mem`, `environ`, `maps`) close to other processes of the same
    user, an unconfined command included. Root keeps CAP_SYS_PTRACE: the sandbox stops a
    confined command, nothing here stops root. The commands swetui starts are dumpable again
    (exec resets it)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _reexec(found: dict[str, str], git_kept: dict[str, str],
            git_secrets: list[tuple[str, str]]) -> str:
    """Exec again without `found`, and with only `git_kept` of git's settings when some
    carried a credential (`git_secrets`: redacted by the new image, as `found`'s are)."""
    payload = json.dumps({"variables": found, "redacted": git_secrets}).encode("utf-8")
    if len(payload) > PIPE_LIMIT:
        return (f"the secret variables are too large to hand over ({len(payload):,} bytes); "
                "they stay in swetui's environment, where a command you approve can read them")
    environment = {name: value for name, value in os.environ.items() if name not in found
                   and not (git_secrets and GIT_CONFIG_VARIABLES.fullmatch(name))}
    if git_secrets:
        environment.update(git_kept)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, payload)  # fits the pipe buffer: does not block
        os.close(write_end)
        write_end = -1
        os.set_inheritable(read_end, True)
        environment[MARKER] = str(read_end)
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, sys.orig_argv, environment)
    except OSError as exc:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
        return (f"could not restart without the API keys in its environment "
                f"({exc.strerror or exc}); a command you approve can read them")
    raise AssertionError("unreachable: execve returned")  # pragma: no cover


def _receive(handed: str, extra: tuple[str, ...]) -> str | None:
    """Read the secrets the previous image handed over; a bad pipe is a warning, not a
    crash (the keys are then missing, and the provider says which one it needs)."""
    try:
        fd = int(handed)
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            raise OSError(f"descriptor {fd} is not a pipe")
    except (ValueError, OSError) as exc:
        return f"{MARKER}={handed!r} is unusable ({exc}); API keys were not received"
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except OSError as exc:
        return f"API keys could not be received ({exc.strerror or exc})"
    finally:
        os.close(fd)
    try:
        handed_over = json.loads(b"".join(chunks))
        variables = handed_over.get("variables", {})
        redacted = handed_over.get("redacted", [])
        if not isinstance(variables, dict) or not isinstance(redacted, list):
            raise ValueError("not a mapping")
        pairs = [(str(value), str(name)) for value, name in redacted]
    except (ValueError, AttributeError, TypeError) as exc:
        return f"API keys could not be received (malformed hand-over: {exc})"
    STORE.load({str(name): str(value) for name, value in variables.items()}, redact=extra)
    STORE.register_many(pairs)
    # A secret that is still in the environment (none, normally) is held and redacted too.
    STORE.load(secret_variables(os.environ, extra), redact=extra)
    STORE.register_many(split_git_environment(os.environ, extra)[1])
    return None
