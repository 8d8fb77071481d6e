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
from pathlib import Path

from swetui.files import read_regular
from swetui.secrets import TOKEN_VALUES, is_credential_name

MAX_CONFIG_BYTES = 1024 * 1024
"""A config larger than this is not copied: it is covered (unreadable) instead."""
REMOVED = "[removed by swetui's sandbox]"
SYSTEM_CONFIGS = ("/etc/gitconfig", "/etc/pip.conf", "/etc/xdg/pip/pip.conf")
HOME_CONFIGS = (".gitconfig", ".config/git/config")
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/\s@\"']+)@")
_SETTING = re.compile(r"^(?P<key>\s*[A-Za-z][\w.-]*\s*[=:])(?P<value>.*)$")
SECRET_KEYS = ("extraheader", "authorization", "oauthtoken", "password", "token", "secret")


def _userinfo(match: re.Match[str]) -> str:
    user = match.group("user")
    if ":" in user or len(user) >= 20 or TOKEN_VALUES.search(user):
        return match.group("scheme")  # `git@` or `deploy@` stays; a password or token goes
    return match.group(0)


def scrub(text: str) -> str:
    """`text` (an ini-style config) without credentials: a URL's password or token user,
    and the values of settings named like a credential or a header."""
    lines = []
    for line in text.splitlines(keepends=True):
        setting = _SETTING.match(line)
        if setting is not None:
            key = setting.group("key").rstrip("=: \t").strip().lower()
            name = key.rsplit(".", 1)[-1]
            if any(word in name for word in SECRET_KEYS) or is_credential_name(name):
                newline = line[len(line.rstrip("\r\n")):]
                lines.append(f"{setting.group('key')} {REMOVED}{newline}")
                continue
        lines.append(_USERINFO.sub(_userinfo, line))
    return "".join(lines)


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


MAX_INCLUDED = 50
_SECTION = re.compile(r"^\s*\[\s*(?P<name>[A-Za-z][\w.-]*)")
_INCLUDE_PATH = re.compile(r"^\s*path\s*=\s*(?P<path>.+?)\s*$", re.IGNORECASE)


def included(path: str, home: str) -> list[str]:
    """The files `path` (a git config) includes (`[include]`/`[includeIf "…"]` `path = …`):
    `~/.gitconfig` often keeps its tokens in an included `~/.gitconfig.local`. Relative
    paths are the including file's folder's; `~/` is the home."""
    try:  # never blocking: a planted `path = fifo` would stop every command
        text = read_regular(path, MAX_CONFIG_BYTES)[0].decode("utf-8", "replace")
    except OSError:
        return []
    found, section = [], ""
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header is not None:
            section = header.group("name").lower()
            continue
        setting = _INCLUDE_PATH.match(line)
        if section in ("include", "includeif") and setting is not None:
            named = setting.group("path").strip('"')
            named = os.path.join(home, named[2:]) if named.startswith("~/") else named
            found.append(os.path.join(os.path.dirname(path), named))
    return found


def candidates(home: str, git_dirs: list[str]) -> list[str]:
    """Every config a confined command may read that can carry a credential, and the
    configs git's configs include (`included`, followed up to `MAX_INCLUDED` files)."""
    gits = [*(path for path in SYSTEM_CONFIGS if "git" in path),
            *(os.path.join(home, name) for name in HOME_CONFIGS), *git_configs(git_dirs)]
    found = [*SYSTEM_CONFIGS, *gits]
    for path in gits:
        if len(found) > len(SYSTEM_CONFIGS) + len(gits) + MAX_INCLUDED:
            break
        for more in included(path, home):
            if more not in found:
                found.append(more)
                gits.append(more)
    return found


def scrubbed_copies(paths: list[str], into: Path) -> tuple[list[list[str]], list[str]]:
    """([copy, original] pairs for the configs among `paths` that hold a credential, the
    copies written into `into`), and the ones to cover instead (too large, unreadable)."""
    pairs: list[list[str]] = []
    cover: list[str] = []
    for number, path in enumerate(dict.fromkeys(paths)):
        real = os.path.realpath(path)
        if not os.path.isfile(real):
            continue
        try:
            data = read_regular(real, MAX_CONFIG_BYTES + 1)[0]
        except OSError:
            continue  # not readable by swetui (or no longer a regular file): nor by the command
        if len(data) > MAX_CONFIG_BYTES:
            cover.append(real)
            continue
        text = data.decode("utf-8", "surrogateescape")
        clean = scrub(text)
        if clean == text:
            continue
        copy = into / f"{number}-{os.path.basename(real)}"
        fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(clean.encode("utf-8", "surrogateescape"))
        pairs.append([str(copy), real])
    return pairs, cover
