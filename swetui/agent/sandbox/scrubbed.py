"""Configuration files a confined command needs but that may carry a credential: git's
configs (`url."https://ghp_…@github.com/".insteadOf`, a remote `https://user:token@…`, the
`http.extraheader = AUTHORIZATION: basic …` CI checkouts leave in `.git/config`) and pip's
system config (`index-url = https://user:password@…`). Covering them would break git (no
`user.name` to commit with) and pip; so the command sees a copy without the credentials,
bound over the original by the sandbox's mount namespace (`mounts.set_up_mounts`): by that
path the original cannot be opened. Files without a credential are left as they are.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from swetui.agent.sandbox.git_includes import MAX_CONFIG_BYTES, MAX_TOTAL_BYTES, parsed
from swetui.files import read_regular
from swetui.git_settings import (
    ASSIGNED,
    USERINFO,
    credentials,
    environment_settings,
    secret_key,
    without_credential,
)
from swetui.secrets import TOKEN_VALUES

REMOVED = "[removed by swetui's sandbox]"
REFUSED = "= [the rest is not shown by swetui's sandbox: git reads no further]\n"
"""Where a file git refuses partway is cut: a line git refuses too (no key before `=`)."""
SYSTEM_CONFIGS = ("/etc/gitconfig", "/etc/pip.conf", "/etc/xdg/pip/pip.conf")
HOME_CONFIGS = (".gitconfig", ".config/git/config")
_SETTING = re.compile(r"^(?P<key>\s*(?:\[[^\]\n]*\]\s*)?[A-Za-z][\w.-]*\s*[=:])(?P<value>.*)$")
"""`key = value`, also beside its section's header (`[http] extraheader = …`: git reads it)."""


def _continued(line: str) -> bool:
    """Whether git reads the next line as more of this one's value (an odd run of `\\`
    before the line's end)."""
    body = line.rstrip("\r\n")
    return (len(body) - len(body.rstrip("\\"))) % 2 == 1


def _logical(text: str) -> list[list[str]]:
    """`text`'s lines, those continued with `\\` grouped with the lines that continue them."""
    groups: list[list[str]] = []
    joining = False
    for line in text.splitlines(keepends=True):
        if joining:
            groups[-1].append(line)
        else:
            groups.append([line])
        joining = _continued(line)
    return groups


def scrub(text: str) -> str:
    """`text` (an ini-style config) without credentials: a URL's password or token user,
    and the values of settings named like a credential or a header or holding a known
    token format (with the lines a `\\` continues them on, left empty)."""
    lines = []
    for group in _logical(text):
        first = group[0]
        setting = _SETTING.match(first)
        whole = "".join(line.rstrip("\r\n")[:-1] if _continued(line) else line
                        for line in group)
        secret = False
        if setting is not None:
            key = setting.group("key")
            name = re.split(r"[\].\s]", key.rstrip("=: \t").strip())[-1].lower()
            cleaned = USERINFO.sub(without_credential, whole)
            # a known token format under any name (`[hub] user = ghp_…`) goes whole too
            secret = secret_key(name) or TOKEN_VALUES.search(cleaned) is not None or \
                ASSIGNED.search(cleaned[len(key):]) is not None or \
                cleaned != whole and len(group) > 1
        if secret and setting is not None:
            newline = first[len(first.rstrip("\r\n")):]
            shown = USERINFO.sub(without_credential, setting.group("key"))
            lines.append(f"{shown} {REMOVED}{newline}")
            lines += [line[len(line.rstrip("\r\n")):] for line in group[1:]]
            continue
        lines += [USERINFO.sub(without_credential, line) for line in group]
    return "".join(lines)


def left_in(text: str, clean: str) -> bool:
    """Whether a credential git reads from the config `text` is still in `clean`, its
    scrubbed copy: a form `scrub` does not know (checked against git's own reading). Such a
    config is covered instead of copied."""
    return any(word in clean for name, value in parsed(text)
               for word in credentials(name, value))


MAX_SUBMODULES = 200


def git_configs(git_dirs: list[str]) -> list[str]:
    """The config files of these git directories (a worktree's own and its common one) and
    of their submodules' git directories (`.git/modules/NAME/config`, nested too)."""
    found = []
    for git_dir in git_dirs:
        found += [os.path.join(git_dir, name) for name in ("config", "config.worktree")]
        modules = os.path.join(git_dir, "modules")
        if not os.path.isdir(modules) or os.path.islink(modules):
            continue
        for folder, dirs, names in os.walk(modules):
            if "config" in names and os.path.isfile(os.path.join(folder, "HEAD")):
                found.append(os.path.join(folder, "config"))
            dirs[:] = [name for name in dirs if name not in ("objects", "refs", "logs")]
            if len(found) > MAX_SUBMODULES:
                break
    return found


def home_configs(home: str, environ: dict[str, str] | None = None) -> list[str]:
    """The user's own git configs: the system's, the home's, `$XDG_CONFIG_HOME/git/config`,
    the files `GIT_CONFIG_GLOBAL`/`GIT_CONFIG_SYSTEM` name (git reads those instead) and
    those the environment's own settings include (CI runners give git an `include.path`:
    not granted, it stopped every git command with "unable to parse command-line config")."""
    env = os.environ if environ is None else environ
    found = [*(path for path in SYSTEM_CONFIGS if "git" in path),
             *(os.path.join(home, name) for name in HOME_CONFIGS)]
    if os.path.isabs(env.get("XDG_CONFIG_HOME", "")):
        found.append(os.path.join(env["XDG_CONFIG_HOME"], "git", "config"))
    found += [env[name] for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM")
              if os.path.isabs(env.get(name, ""))]
    for key, value in environment_settings(env):  # `GIT_CONFIG_KEY_0=include.path`
        name = key.lower()
        if name == "include.path" or name.startswith("includeif.") and name.endswith(".path"):
            path = os.path.join(home, value[2:]) if value.startswith("~/") else value
            found += [path] if os.path.isabs(path) else []  # git refuses a relative one
    return list(dict.fromkeys(found))


def scrubbed_copies(paths: list[str], into: Path, cut: dict[str, int] | None = None
                    ) -> tuple[list[list[str]], list[str]]:
    """([copy, original] pairs for the configs among `paths` that hold a credential, the
    copies written into `into`), and the ones to cover instead (too large, or a credential
    `scrub` cannot take out: `left_in`)."""
    pairs: list[list[str]] = []
    cover: list[str] = []
    budget = MAX_TOTAL_BYTES
    for number, path in enumerate(dict.fromkeys(paths)):
        real = os.path.realpath(path)
        try:
            info = os.stat(real)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        kept = (cut or {}).get(real)
        mark = (real, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns, kept)
        if (known := _SCRUBBED.get(mark)) is None:
            budget -= info.st_size
            if info.st_size > MAX_CONFIG_BYTES or budget < 0:
                cover.append(real)  # too large to read, or beyond what is read in all
                continue
            try:
                data = read_regular(real, MAX_CONFIG_BYTES + 1)[0]
            except OSError:
                continue  # not readable by swetui (or no longer a regular file): nor by it
            known = _judged(data, kept)
            if len(_SCRUBBED) >= 512:
                _SCRUBBED.clear()
            _SCRUBBED[mark] = known
        clean, changed, covered = known
        if covered:
            cover.append(real)
            continue
        if not changed:
            continue
        copy = into / f"{number}-{os.path.basename(real)}"
        fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(clean)
        pairs.append([str(copy), real])
    return pairs, cover


_SCRUBBED: dict[tuple[str, int, int, int, int, int | None], tuple[bytes, bool, bool]] = {}
"""(path, inode, size, mtime, ctime, lines shown) → `_judged`: a config unchanged since the
last command is not read and scrubbed again (ctime: a write that puts the old mtime back
still shows)."""


def _judged(data: bytes, kept: int | None = None) -> tuple[bytes, bool, bool]:
    """(the scrubbed copy, whether it differs, whether the config is to be covered: too
    large, or a credential scrubbing leaves in) of a config's bytes; with `kept`, of its
    first `kept` lines and a line git refuses (`git_includes.Configs.cut`)."""
    if len(data) > MAX_CONFIG_BYTES:
        return b"", False, True
    text = data.decode("utf-8", "surrogateescape")
    if kept is not None:
        text = "".join(line + "\n" for line in text.split("\n")[:kept]) + REFUSED
    clean = scrub(text)
    if left_in(text, clean):
        return b"", False, True
    return clean.encode("utf-8", "surrogateescape"), kept is not None or clean != text, False
