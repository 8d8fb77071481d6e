"""Where secrets live outside a file's own name: the user's credential files, and the
target a link reaches (a link named `settings.py` that points at `.env` is `.env`)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from swetui.agent.sensitive import CREDENTIAL_DIRS, is_secret_file

HOME_SECRETS = (*sorted(CREDENTIAL_DIRS), ".config/gcloud", ".config/gh", ".config/hub",
                ".config/op", ".config/rclone", ".netrc", ".git-credentials", ".pypirc",
                ".npmrc", ".yarnrc", ".pgpass", ".my.cnf", ".password-store",
                ".cargo/credentials", ".cargo/credentials.toml", ".terraform.d", ".m2",
                ".gradle/gradle.properties", ".gradle/init.gradle", ".gradle/init.gradle.kts",
                ".gradle/init.d", ".vault-token", ".bash_history", ".zsh_history",
                ".python_history", ".psql_history", ".mysql_history", ".local/share/keyrings",
                ".cache/huggingface/token", ".huggingface/token", ".config/pip",
                ".config/uv", ".pip/pip.conf", ".config/git/credentials", ".gem/credentials",
                ".nuget/NuGet/NuGet.Config", ".cabal/config", ".stack/config.yaml",
                ".cache/keyring", ".local/share/python_keyring")
"""Credential files and directories in the user's home, covered inside the sandbox."""


def home_secrets() -> list[str]:
    """HOME_SECRETS as absolute paths in the current user's home (asked each time: the home
    can change). Joined as strings: `secret_target` asks for them for every path it
    judges, and 46 pathlib joins a call were 1.9 s of a 10,000-file map's start."""
    return list(_in_home(str(Path.home())))


@functools.lru_cache(maxsize=4)
def _in_home(home: str) -> tuple[str, ...]:
    return tuple(os.path.join(home, name) for name in HOME_SECRETS)


def home_secret_files(limit: int = 2_000) -> list[str]:
    """The files among the home's secrets: each credential file, and the files in each
    credential directory (at most `limit` in all)."""
    found: list[str] = []
    for secret in home_secrets():
        if os.path.isfile(secret):
            found.append(secret)
        elif os.path.isdir(secret):
            for folder, _dirs, names in os.walk(secret):
                found += [os.path.join(folder, name) for name in names]
                if len(found) >= limit:
                    return found[:limit]
    return found[:limit]


def secret_target(path: str, root: str) -> bool:
    """Whether `path` (absolute, or relative to the workspace `root`) resolves, through
    every link on the way, to a secret file, a credential directory or a credential file
    of the user's home: what is read is the target, whatever the link is called."""
    try:
        real = os.path.realpath(os.path.join(root, path))
    except OSError:  # a link that cannot be read (`/proc/<pid>/fd/3` of another process)
        return True  # cannot tell where it leads: taken as a secret (it asks)
    rel = os.path.relpath(real, os.path.realpath(root))
    inside = rel != ".." and not rel.startswith("../")
    if is_secret_file(rel if inside else real) or os.path.basename(real) in CREDENTIAL_DIRS:
        return True
    return any(real == secret or real.startswith(secret + "/") for secret in home_secrets())
