"""Which workspace paths are protected, which hold secrets, and glob matching with `**`.

Protected paths make an edit or a command always ask, whatever the mode or the remembered
rules; secret files are also kept out of the model's context by the read tools.
"""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath

KEY_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".gpg")
KEY_PREFIXES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
CREDENTIAL_DIRS = frozenset({".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker"})
CREDENTIAL_NAMES = frozenset({
    "credentials", "credentials.json", "credentials.yml", "credentials.yaml",
    ".git-credentials", ".netrc", ".pgpass", ".npmrc", ".pypirc", ".htpasswd",
    "secrets.json", "secrets.yml", "secrets.yaml", "secrets.toml", "token.json",
    # tools' own credential files, kept in a project as often as in the home
    ".my.cnf", ".mylogin.cnf", ".s3cfg", ".boto", ".dockercfg", ".vault-token", "rclone.conf",
    ".terraformrc", "terraform.rc", "credentials.tfrc.json", "kubeconfig", ".kubeconfig",
    "auth.json", "service-account.json", "service_account.json", "vault_pass.txt",
    ".vault_pass", ".vault-pass", ".vault_password",
})
SECRET_SUFFIXES = (".tfstate", ".tfstate.backup")
"""Terraform's state: every attribute of every resource in plain text, passwords and keys
included (Terraform's own documentation says to treat it as sensitive)."""
_SERVICE_KEY = re.compile(r"service[-_]?account|adminsdk")
"""A cloud service account's key file (`my-app-firebase-adminsdk-x1.json`,
`service-account-prod.json`): a private key in JSON."""
# Templates meant to be read and committed, not secrets.
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})
CREDENTIAL_STEMS = (".netrc", ".pgpass", ".git-credentials", ".htpasswd")
"""Variants of these (`.netrc-nopassword`, `.pgpass.bak`) hold the same kind of secret."""
SECRET_WORDS = frozenset({"secret", "secrets", "credential", "credentials"})
DATA_SUFFIXES = frozenset({"env", "json", "yml", "yaml", "toml", "ini", "cfg", "conf", "txt",
                           "properties", "xml", "config"})
"""A name with a secret word is a secret file only as data (`prod.secret.json`), not as code
(`secrets.py` is a module about secrets)."""


def _parts(rel: str) -> tuple[str, ...]:
    return tuple(part for part in PurePosixPath(rel).parts if part not in ("", "."))


def is_secret_file(rel: str) -> bool:
    """True for files that usually hold secrets (.env, keys, credentials)."""
    parts = _parts(rel)
    if not parts:
        return False
    name = parts[-1].lower()
    if name.startswith(".env") and name not in ENV_TEMPLATES:
        return True
    if name.endswith(KEY_SUFFIXES) or name.startswith(KEY_PREFIXES):
        return not name.endswith(".pub")
    return _credential_file(name, [part.lower() for part in parts[:-1]])


def _credential_file(name: str, folders: list[str]) -> bool:
    """Whether a file called `name` (lowercase) in `folders` (lowercase, outermost first)
    holds credentials by its name or place, beyond `.env*` and key files: the one rule
    for reading (`is_secret_file`) and for writing (`protected_path_reason`)."""
    return name in CREDENTIAL_NAMES or name.startswith(CREDENTIAL_STEMS) or \
        name.endswith(SECRET_SUFFIXES) or _service_key(name) or _secret_data(name) or \
        any(part in CREDENTIAL_DIRS for part in folders)


def _service_key(name: str) -> bool:
    return name.endswith(".json") and _SERVICE_KEY.search(name) is not None


def _secret_data(name: str) -> bool:
    """`secrets.env`, `prod.secret.json`, `db-credentials.yaml`, `app.env`."""
    words = re.split(r"[._-]+", name)
    suffix = words[-1] if len(words) > 1 else ""
    if suffix == "env":
        return True
    return suffix in DATA_SUFFIXES and any(word in SECRET_WORDS for word in words[:-1])


def protected_path_reason(rel: str | None) -> str | None:
    """Why writing `rel` (workspace-relative) must always ask, or None."""
    if rel is None or rel.startswith("/") or rel == ".." or rel.startswith("../"):
        return "writes outside the workspace"
    parts = _parts(rel)
    lowered = [part.lower() for part in parts]
    if ".git" in lowered:
        return "writes under .git/"
    if ".swetui" in lowered:
        # The agent must not rewrite its own approval rules or checkpoints.
        return "writes swetui's own settings (.swetui/)"
    if not parts:
        return None
    name = lowered[-1]
    if name.startswith(".env"):
        return f"writes an environment file ({parts[-1]})"
    if name.endswith(KEY_SUFFIXES) or name.startswith(KEY_PREFIXES):
        return f"writes a key file ({parts[-1]})"
    if _credential_file(name, lowered[:-1]):
        return f"writes a credentials file ({rel})"
    return None


@functools.lru_cache(maxsize=512)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob: `*` and `?` stay within a path component, `**` crosses them, `[..]`
    is a class. A pattern with no `/` matches at any depth (like `.gitignore`)."""
    pattern = pattern.strip().removeprefix("./")
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
                i += 1
            else:
                body = pattern[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
                i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    # A pattern naming a directory also covers everything below it.
    return re.compile("".join(out).rstrip("/") + "(?:/.*)?" + r"\Z", re.DOTALL)


def path_matches(pattern: str, rel: str) -> bool:
    """True when the workspace-relative path `rel` matches the glob `pattern`."""
    try:
        regex = glob_to_regex(pattern)
    except re.error:
        return False
    return regex.match(rel.removeprefix("./")) is not None


def escape_glob(path: str) -> str:
    """A glob that matches exactly `path`."""
    return re.sub(r"([*?\[])", r"[\1]", path)
