"""The credentials in a workspace's secret files, as they are now and as git's history kept
them, become known secret values: redacted from every tool result (`redaction.py`) before
the model, the screen or the disk gets it.

Why: the sandbox keeps a command from opening `.env` (by any name), but not from reading git's
objects — `git log -p`, `git show HEAD~3:.env`, `git stash show -p` print a `.env` that was
committed once, and git must keep working inside the sandbox. Reading history is not
something the kernel can tell apart from `git log`. So what is protected is the values:
- every credential in the workspace's secret files now (`.env`, `*.env`, credentials files,
  private keys; the ones the secret rule names), read again when they change;
- every credential ever committed in a file the secret rule names, from `git log --all`
  (once per session, bounded by `HISTORY_SECONDS`), so a rotated key is hidden too.
A credential is what the environment rule calls one (`secrets.is_credential_name`: a
`*_KEY`/`*_TOKEN`/`PASSWORD` setting, a URL with a password, a well-known token format), and
each line of a private key (a setting's value read as dotenv and YAML read it: inside its
quotes, before a ` # comment`). Like all redaction it matches values (and the forms programs
print them in unasked, `secrets.encoded_forms`): a copy encoded on purpose (`| base64`)
walks around it; a secret committed under an innocent name (`settings.py`) is
not known.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from swetui.agent.git_folder import why_not_git
from swetui.agent.sandbox import WorkspaceTooLarge, secret_files
from swetui.agent.sensitive import is_secret_file
from swetui.agent.tools.shell import scrubbed_environment
from swetui.files import read_regular
from swetui.secrets import (
    MIN_REDACTED,
    STORE,
    TOKEN_VALUES,
    URL_CREDENTIALS,
    SecretStore,
    is_credential_name,
)

MAX_SECRET_FILE_BYTES = 256 * 1024
HISTORY_SECONDS = 20.0
"""Each git command reading history gives up after this long (a huge repository)."""
MAX_HISTORY_BYTES = 16 * 1024 * 1024
MAX_HISTORY_PATHS = 1_000
MAX_VALUES = 5_000
"""Values registered at most from one workspace: each one costs every tool result a
substring test, and a planted history could hold millions."""
_SETTING = re.compile(
    r"""^\s*(?:export\s+)?["']?(?P<name>[A-Za-z_][\w.-]*)["']?\s*[=:]\s*(?P<value>.*?)\s*,?\s*$""")
_KEY_LINE = re.compile(r"^[A-Za-z0-9+/=]{16,}$")
_SAFE_GIT = ("--no-pager", "-c", "core.fsmonitor=false",
             "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
             "-c", "log.showSignature=false", "-c", "gpg.program=false",
             "-c", "gpg.ssh.program=false", "-c", "gpg.x509.program=false",
             "-c", "protocol.allow=never", "-c", "core.sshCommand=false")
"""git runs unconfined here, in a repository that may come from anyone (a tarball's
`.git/config`): nothing it could run is left on (signature checks run `gpg.program`, diffs
run external drivers and textconv, a pager, a partial clone fetches missing objects over
any transport: `GIT_NO_LAZY_FETCH` in `_git` too). It gets the environment commands get:
no API key for anything it might still run."""

GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0",
           "GIT_ALLOW_PROTOCOL": ""}
"""Set for each git call. `GIT_ALLOW_PROTOCOL` empty allows no transport whatever the
repository's config says: `protocol.allow=never` alone yields to a planted
`protocol.ext.allow=always` (a git without `GIT_NO_LAZY_FETCH`, before 2.39.4, then ran
`ext::sh -c ...` to fetch a partial clone's missing blobs)."""

_NOT_WHOLE = "git history was not read whole for secret values (too slow, too large, or no " \
             "git): a secret committed once may show unredacted"


_QUOTED = re.compile(r"""(?P<q>["'])(?P<value>(?:[^"'\\]|\\.|(?!(?P=q))["'])*)(?P=q)""")
_COMMENT = re.compile(r"\s+#")


def setting_value(written: str) -> str:
    """A setting's value as dotenv, shells and YAML read it: what its quotes hold when it is
    quoted (`KEY="v" # prod` is `v`), else what comes before a ` # comment`. Taking the
    line's rest registered `v" # prod`, which `v` printed alone never matched."""
    written = written.strip()
    quoted = _QUOTED.match(written)
    if quoted is not None:
        return quoted.group("value")
    if written[:1] in "\"'":
        return written[1:]  # a quoted value going on over more lines: its first line
    return _COMMENT.split(written, maxsplit=1)[0]


def credential_values(text: str) -> Iterator[tuple[str, str]]:
    """(name, value) for each credential in a secret file's `text`: a setting the
    environment rule calls a credential (`KEY=…`, `key: …`, `"key": "…"`), any well-known
    token or URL password, and each line of a private key."""
    in_key = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("-----BEGIN") and "PRIVATE KEY" in line:
            in_key = True
            continue
        if line.startswith("-----END"):
            in_key = False
            continue
        if in_key:
            if _KEY_LINE.match(line):
                yield "private key", line
            continue
        setting = _SETTING.match(raw)
        if setting is not None:
            name, value = setting.group("name"), setting_value(setting.group("value"))
            if value and is_credential_name(name.upper().replace(".", "_").replace("-", "_"),
                                            value):
                yield name, value
        for match in TOKEN_VALUES.finditer(raw):
            yield "token", match.group(0)
        for match in URL_CREDENTIALS.finditer(raw):
            password = match.group(0).rstrip("@").rsplit(":", 1)[-1]
            yield "URL password", password


class KnownSecrets:
    """Registers a workspace's secret values with the redactor (module docstring)."""

    def __init__(self, root: Path, store: SecretStore = STORE) -> None:
        self.root = Path(os.path.realpath(root))
        self.store = store
        self._seen: dict[str, tuple[int, int, int]] = {}
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self._history_done = threading.Event()
        self._history_started = False
        self.notice: str | None = None
        """Set when not every secret value is known: history too slow to read whole, or
        more values than `MAX_VALUES`."""
        self._told: str | None = None

    def refresh(self) -> None:
        """Register the credentials of the secret files now, and (once, waiting for it)
        those of git's history. Called before each command runs."""
        self.start_history()
        with self._lock:
            self._present()
        self._history_done.wait(HISTORY_SECONDS * 2 + 5)

    def untold(self) -> str | None:
        """The notice, the first time it is asked for after it changed (said once)."""
        notice = self.notice
        if notice is None or notice == self._told:
            return None
        self._told = notice
        return notice

    def start_history(self) -> None:
        """Read git's history in the background (once)."""
        with self._lock:
            if self._history_started:
                return
            self._history_started = True
        threading.Thread(target=self._history, name="swetui-known-secrets",
                         daemon=True).start()

    def _found(self, source: str, text: str) -> list[tuple[str, str]]:
        found = []
        for name, value in credential_values(text):
            if len(value) < MIN_REDACTED or value in self._values:
                continue
            if len(self._values) >= MAX_VALUES:
                self.notice = f"more than {MAX_VALUES:,} secret values in the workspace's " \
                              "secret files and history: the rest are not redacted"
                break
            self._values.add(value)
            found.append((value, f"{source}:{name}"))
        return found

    def _present(self) -> None:
        try:
            named = secret_files(self.root).named()
        except WorkspaceTooLarge:
            return
        found: list[tuple[str, str]] = []
        for path in named:
            try:
                info = os.stat(path)
            except OSError:
                continue
            mark = (info.st_ino, info.st_size, info.st_mtime_ns)
            if self._seen.get(path) == mark or info.st_size > MAX_SECRET_FILE_BYTES:
                continue
            self._seen[path] = mark
            text = _read_regular(path)
            if text is not None:
                found += self._found(os.path.relpath(path, self.root), text)
        self.store.register_many(found)

    def _git(self, *args: str) -> str | None:
        """git's output, or None (it failed); at most `MAX_HISTORY_BYTES` of it are held
        (a planted history could print gigabytes) and a cut is said in the notice."""
        try:
            process = subprocess.Popen(["git", *_SAFE_GIT, "-C", str(self.root), *args],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       stdin=subprocess.DEVNULL,
                                       env={**scrubbed_environment(), **GIT_ENV})
        except OSError:
            self.notice = _NOT_WHOLE
            return None
        timer = threading.Timer(HISTORY_SECONDS, process.kill)
        timer.start()
        try:
            assert process.stdout is not None
            with process.stdout:
                output = process.stdout.read(MAX_HISTORY_BYTES + 1)
                if len(output) > MAX_HISTORY_BYTES:
                    process.kill()
            code = process.wait()
        finally:
            timer.cancel()
        if len(output) > MAX_HISTORY_BYTES or code < 0:
            self.notice = _NOT_WHOLE
        if code != 0 and len(output) <= MAX_HISTORY_BYTES:
            return None
        return output[:MAX_HISTORY_BYTES].decode("utf-8", "replace")

    def _history(self) -> None:
        try:
            blocked = why_not_git(self.root)
            if blocked is not None:  # git would wait on it for HISTORY_SECONDS
                self.notice = f"git history was not read for secret values ({blocked}, " \
                              "which git would wait on): a secret committed once may " \
                              "show unredacted"
                return
            listed = self._git("log", "--no-show-signature", "--all", "--reflog", "--format=",
                               "--name-only",
                               "--diff-filter=A", "--no-renames", "-z")
            if not listed:
                return
            paths = sorted({path for path in listed.replace("\n", "\0").split("\0")
                            if path and is_secret_file(path)})[:MAX_HISTORY_PATHS]
            if not paths:
                return
            patch = self._git("log", "--no-show-signature", "--all", "--reflog", "--format=",
                              "-p", "--no-textconv", "--no-ext-diff", "--no-color",
                              "--no-renames", "--", *(f":(top,literal){path}" for path in paths))
            # the names are the repository's, from its top (the workspace may be a folder
            # of it); literal: a file named ':(glob)**' is no pattern
            if patch:
                added = "\n".join(line[1:] for line in patch.splitlines()
                                  if line.startswith("+") and not line.startswith("+++"))
                self.store.register_many(self._found("git history", added))
        finally:
            self._history_done.set()


def _read_regular(path: str) -> str | None:
    """The start of `path` if it is a regular file when opened (`files.read_regular`, which
    never blocks): a FIFO or a device named `.env` (a tarball can hold one) would wait for
    ever for a writer or a key press."""
    try:
        data, _size = read_regular(path, MAX_SECRET_FILE_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace")


@functools.lru_cache(maxsize=16)
def known_secrets(root: str) -> KnownSecrets:
    """The workspace's known secrets, one per workspace in this process."""
    return KnownSecrets(Path(root))
