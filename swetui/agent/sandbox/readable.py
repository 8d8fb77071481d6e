"""What a confined command may read outside its workspace: the system and the toolchains it
runs on, not the places people keep their work and data (home directories, other projects,
`/srv`, `/mnt`, `/work`...), where any file may be someone's `prod.env`.

Landlock only grants, so this is the list of what is granted (read and execute); everything
else outside the workspace cannot be opened or listed, whatever its name, by the kernel.
The user's toolchains under the home are granted by name (`HOME_TOOLCHAINS`) and by what
the environment says is one (each `PATH` entry, a venv, `CARGO_HOME`...), never the home
itself. Secrets inside granted places (`/etc/shadow`, `~/.cargo/credentials`) are still
covered by the mount namespace (`SYSTEM_SECRETS`, `secret_paths.HOME_SECRETS`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from swetui.agent.git_folder import GitDirs, git_dirs, read_pointer
from swetui.agent.sandbox.mounts import under

SYSTEM_ROOTS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                "/opt", "/nix", "/gnu", "/snap", "/proc", "/sys", "/var/lib/dpkg",
                "/var/cache/fontconfig", "/run/systemd/resolve", "/run/resolvconf",
                "/home/linuxbrew/.linuxbrew")
"""The system: programs, libraries, configuration, this namespace's /proc, name
resolution. `/tmp` and `/dev` are the sandbox's own (granted with the workspace)."""
ETC_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
               "/etc/ssl/private", "/etc/letsencrypt", "/etc/wireguard", "/etc/kubernetes",
               "/etc/docker", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key",
               "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
               "/etc/credstore", "/etc/credstore.encrypted", "/etc/environment", "/run/secrets",
               "/etc/apt/auth.conf", "/etc/apt/auth.conf.d", "/etc/mysql/debian.cnf",
               "/etc/NetworkManager/system-connections", "/etc/wpa_supplicant",
               "/etc/netplan", "/etc/ipsec.secrets", "/etc/ipsec.d/private",
               "/etc/swanctl/private", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
               "/etc/ppp/srp-secrets", "/etc/openvpn", "/etc/krb5.keytab", "/etc/sssd",
               "/etc/ldap.secret", "/etc/libnss-ldap.secret", "/etc/pam_ldap.secret",
               "/etc/libvirt/secrets", "/etc/pki/tls/private", "/etc/postfix/sasl_passwd",
               "/etc/postfix/sasl_passwd.db", "/etc/exim4/passwd.client",
               "/etc/davfs2/secrets", "/etc/rsyncd.secrets", "/etc/fetchmailrc",
               "/etc/gitlab-runner", "/etc/rancher", "/etc/boto.cfg", "/etc/samba/smbpasswd",
               "/etc/cron.d")
"""Secrets inside the granted system (root can read them: CI runs as root), covered:
private keys, package-repository, database, VPN, Wi-Fi, dial-up, mail-relay, LDAP and
Kerberos credentials, CI runners' tokens. Configs that commands need but may carry a
credential (git's, pip's) are shown without it instead (`scrubbed.py`)."""
HOME_TOOLCHAINS = (".cargo", ".rustup", ".pyenv", ".nvm", ".fnm", ".volta", ".bun", ".deno",
                   ".rbenv", ".gem", ".sdkman", ".asdf", ".conda", "miniconda3", "anaconda3",
                   "miniforge3", "mambaforge", ".pixi", "go", "sdk", ".elan", ".ghcup",
                   ".cabal", ".stack", ".opam", ".julia", ".juliaup", ".dotnet", ".nuget",
                   ".gradle", ".virtualenvs", ".local/bin", ".local/lib",
                   ".local/share/uv", ".local/share/pipx", ".local/share/virtualenvs",
                   ".local/share/mise", ".local/share/pnpm", ".local/share/fnm",
                   ".local/pipx", ".gitconfig", ".config/git", ".npm", ".yarn",
                   ".pnpm-store", *(f".cache/{tool}" for tool in (
                       "pip", "uv", "pypoetry", "pipenv", "pdm", "hatch", "pre-commit",
                       "huggingface", "torch", "matplotlib", "fontconfig", "node-gyp",
                       "ms-playwright", "puppeteer", "Cypress", "electron", "yarn", "pnpm",
                       "deno", "typescript", "go-build", "bazelisk", "coursier", "ccache",
                       "sccache", "zig", "black", "ruff", "mypy", "pylint")))
"""Toolchains, package caches and their configuration that commands read (git reads
`.gitconfig`; a Python installed by pyenv or uv, a venv of poetry or pipenv, cargo's
registry). Credential files among them stay covered (`secret_paths.HOME_SECRETS`).
`~/.cache` is granted tool by tool, never whole: browsers, editors and language servers
keep there what the user browsed and other projects' indexed source."""
TOOLCHAIN_VARIABLES = ("VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "CARGO_HOME",
                       "RUSTUP_HOME", "GOROOT", "GOPATH", "GOMODCACHE", "NVM_DIR",
                       "VOLTA_HOME", "JAVA_HOME", "UV_PYTHON_INSTALL_DIR", "PIPX_HOME",
                       "BUN_INSTALL", "DENO_DIR", "SDKMAN_DIR", "ASDF_DATA_DIR", "PNPM_HOME")
"""Variables naming a toolchain's directory (granted unless it is the home or above it)."""


def readable_paths(workspace: str, environ: Mapping[str, str] | None = None,
                   extra: tuple[str, ...] = ()) -> list[str]:
    """Every place outside `workspace` a confined command may read: the system, the
    toolchains, the git directory of a workspace that is a git worktree, and `extra` (what
    the user added in the config). Paths that do not exist are left out."""
    env = os.environ if environ is None else environ
    home = env.get("HOME") or str(Path.home())
    found = [*SYSTEM_ROOTS, *(os.path.join(home, name) for name in HOME_TOOLCHAINS)]
    for entry in env.get("PATH", "").split(os.pathsep):
        if os.path.isabs(entry):
            found.append(entry)
            parent = os.path.dirname(entry.rstrip("/"))
            if os.path.basename(entry.rstrip("/")) in ("bin", "shims") and \
                    _toolchain(parent, home):
                found.append(parent)  # a toolchain's bin/: its lib/ is beside it
    found += [env[name] for name in TOOLCHAIN_VARIABLES
              if os.path.isabs(env.get(name, "")) and not _shared(env[name], home)]
    found = [path for path in found if not _shared(path, home)]  # a bin/ linked to the home
    found += worktree_git_dirs(workspace)
    found += enclosing_repository(workspace, home)
    found += [path for path in extra if os.path.isabs(path)]
    kept: list[str] = []
    for path in found:
        real = os.path.realpath(path)
        if os.path.exists(real) and real != "/" and real not in kept:
            kept.append(real)
    return kept


def _toolchain(prefix: str, home: str) -> bool:
    """Whether the directory above a `bin/` on PATH is a toolchain's prefix (a venv, a
    conda env, or inside the system or a home toolchain), not a project that happens to
    have a `bin/` (its other files may be anyone's secrets: only its `bin/` is granted)."""
    if _shared(prefix, home):
        return False
    if any(os.path.exists(os.path.join(prefix, mark)) for mark in ("pyvenv.cfg", "conda-meta")):
        return True
    real = os.path.realpath(prefix)
    roots = [*SYSTEM_ROOTS, *(os.path.join(home, name) for name in HOME_TOOLCHAINS)]
    return any(under(real, os.path.realpath(root)) for root in roots)


def shares_home(path: str, home: str) -> bool:
    """Whether granting `path` would grant the home (it is the home, or above it)."""
    return _shared(path, home)


def _shared(path: str, home: str) -> bool:
    """A directory that holds more than one toolchain (the home, `~/.local`, `/`, a parent
    of the home): granting it would grant the user's data."""
    real, real_home = os.path.realpath(path), os.path.realpath(home)
    return real in ("/", os.path.join(real_home, ".local")) or under(real_home, real)


PROJECT_FILES = ("__init__.py", ".gitignore", ".gitattributes", "pyproject.toml", "setup.cfg",
                 "tox.ini", "pytest.ini", ".pytest.ini", "conftest.py", "package.json",
                 "tsconfig.json", "pnpm-workspace.yaml", "Cargo.toml", "Cargo.lock", "go.work",
                 "go.mod", ".editorconfig")
"""Files above a workspace that tools read up to their repository's top: git's ignore rules,
pytest's and ruff's settings, an npm, cargo or go workspace's manifest."""


def enclosing_repository(workspace: str, home: str) -> list[str]:
    """When the workspace is a folder inside a git repository (a package of a monorepo), the
    repository's git directory and the `PROJECT_FILES` above the workspace up to its top, so
    git, pytest and cargo run there as at the top; not the rest of the repository. A
    repository at the home or above it (dotfiles kept in git) opens nothing."""
    above: list[str] = []
    folder = os.path.realpath(workspace)
    while (parent := os.path.dirname(folder)) != folder:
        folder = parent
        if _shared(folder, home):
            return []  # the home, or above it: dotfiles kept in git are no project
        above.append(folder)
        dirs = git_dirs(Path(folder), follow_symlinks=False)
        if dirs is not None:  # the nearest repository is the one git uses
            if dirs.linked:  # a folder of a worktree: its `.git` file and what it names
                named = _named_back(dirs)
                found = [str(dirs.dot_git), *named] if named else []
            else:  # none for a `.git` that is a link, a FIFO…
                found = [str(path) for path in dirs.dirs]
            return [*found, *(os.path.join(place, name) for place in above
                              for name in PROJECT_FILES)] if found else []
    return []


def listable_paths(workspace: str, home: str) -> list[str]:
    """When the workspace is a folder of a git repository whose directory the sandbox
    grants (`enclosing_repository`), the repository's top: its folders may be listed, not
    read, so pytest and other tools that walk down from the top (pytest lists each folder
    from its rootdir to the tests) run as they do there. Names only (the granted git index
    holds the tracked ones already; untracked names show too): no file there can be read
    but the `PROJECT_FILES` above the workspace."""
    found = enclosing_repository(workspace, home)
    tops = [os.path.dirname(path) for path in found if os.path.basename(path) == ".git"]
    return tops[:1]


def worktree_git_dirs(workspace: str) -> list[str]:
    """When the workspace is a git worktree (its `.git` is a file naming a git directory
    elsewhere), that directory and the repository's common one, so `git status` works.
    Only when that directory names this workspace back (git writes its `gitdir` file): a
    `.git` file planted by a cloned repository cannot open another project to reading."""
    dirs = git_dirs(Path(workspace), follow_symlinks=False)
    return _named_back(dirs) if dirs is not None and dirs.linked else []


def _named_back(dirs: GitDirs) -> list[str]:
    """`dirs` (read from a `.git` file) when its git directory's `gitdir` file names that
    `.git` file back and its common directory is the one that folder is in (git's layout:
    `<common>/worktrees/<name>`); none otherwise, nor when a file on the way cannot be read
    without waiting (a FIFO planted as `gitdir` held every command). Both files can be
    planted with the `.git` file in the workspace: a `commondir` naming any folder opened
    that folder to reading."""
    if dirs.refused is not None or not dirs.dirs:
        return []
    try:
        back = read_pointer(dirs.dirs[0] / "gitdir")
    except (OSError, ValueError):
        return []
    if os.path.realpath(back) != os.path.realpath(dirs.dot_git):
        return []
    gitdir = os.path.realpath(dirs.dirs[0])
    if len(dirs.dirs) > 1 and (os.path.basename(os.path.dirname(gitdir)) != "worktrees" or
                               os.path.realpath(dirs.dirs[1]) != os.path.dirname(
                                   os.path.dirname(gitdir))):
        return []  # git keeps a worktree's folder in `<common>/worktrees/`, nowhere else
    return [str(path) for path in dirs.dirs]
