"""A `.env` committed once and deleted since is still in git's objects: inside the sandbox
`git log -p` and `git show` print it (git must keep working there, and the kernel cannot
tell reading history from reading a log). What is protected is the values: every credential
in the workspace's secret files, now and in history, is redacted from the command's result
before the model, the screen or the session log gets it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from swetui.agent import known_secrets as known_secrets_module
from swetui.agent.known_secrets import MAX_VALUES, KnownSecrets, credential_values
from swetui.agent.sandbox import probe
from swetui.agent.toolbox import Toolbox
from swetui.engine.bus import EventBus
from swetui.secrets import SecretStore
from tests.agent.conftest import tool_call
from tests.agent.test_sandbox import approving

LIVE = "sk_live_plantedSTILLINUSE0123456789abcd"
ROTATED = "hunter2-rotated-db-password-42"
PRIVATE_LINE = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7plantedKEYLINE"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root),
                    *args], check=True, capture_output=True)


@pytest.fixture
def leaky_history(ws_root: Path) -> Path:
    """A repository whose history holds a `.env` (still in use, now untracked), a rotated
    database password in a deleted `config/prod.env`, and a deleted private key."""
    git(ws_root, "init", "-q")
    (ws_root / ".env").write_text(f"STRIPE_KEY={LIVE}\n")
    (ws_root / "config").mkdir()
    (ws_root / "config" / "prod.env").write_text(f"export DB_PASSWORD='{ROTATED}'\n")
    (ws_root / "server.key").write_text("-----BEGIN PRIVATE KEY-----\n"
                                        f"{PRIVATE_LINE}\n-----END PRIVATE KEY-----\n")
    git(ws_root, "add", "-A")
    git(ws_root, "commit", "-qm", "first")
    git(ws_root, "rm", "-q", "--cached", ".env")
    git(ws_root, "rm", "-q", "config/prod.env", "server.key")
    (ws_root / ".gitignore").write_text(".env\n")
    git(ws_root, "add", ".gitignore")
    git(ws_root, "commit", "-qm", "untrack secrets")
    return ws_root


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox: {probe().detail}")
async def test_git_history_prints_no_known_secret(leaky_history: Path,
                                                  make_toolbox: Callable[..., Toolbox],
                                                  agent_bus: EventBus) -> None:
    toolbox = make_toolbox("auto")
    approving(toolbox.queue, agent_bus)  # naming .env asks: the user approves (confined)
    result = await toolbox.run(tool_call(
        "bash", command="git log --oneline; git log -p | cat; git show HEAD~1:.env; "
                        "git show HEAD~1:config/prod.env; git status --short"))
    out = result.content
    assert "untrack secrets" in out and "first" in out  # git still works
    assert "[redacted: " in out and "STRIPE_KEY=" in out  # the names stay, the values go
    for value in (LIVE, ROTATED, PRIVATE_LINE):
        assert value not in out


@pytest.mark.parametrize(("text", "expected"), [
    ("API_KEY=abcdefgh12345678", ["abcdefgh12345678"]),
    ('  "client_secret": "s3cr3t-value-xyz",', ["s3cr3t-value-xyz"]),
    ("DEBUG=true\nHOST=example.org\nPORT=8080", []),
    ("DATABASE_URL=postgres://app:pw-12345678@db/app",
     ["postgres://app:pw-12345678@db/app", "pw-12345678"]),
    # a comment after the value is no part of it (registered whole, `v" # prod` never
    # matched `v` printed alone: `git show HEAD~3:.env | cut -d'"' -f2`, or the value used
    # in a committed script)
    ('STRIPE_KEY="rk_live_abcdef123456" # rotated in May', ["rk_live_abcdef123456"]),
    ("DB_PASSWORD=hunter2-hunter2 # old one", ["hunter2-hunter2"]),
    ("export API_TOKEN='tok#with-hash-42'  # the # inside stays", ["tok#with-hash-42"]),
    ('SECRET_KEY="ab\\"cd-efgh-ijkl"', ['ab\\"cd-efgh-ijkl']),
])
def test_credential_values_are_what_the_environment_rule_calls_credentials(
        text: str, expected: list[str]) -> None:
    assert [value for _name, value in credential_values(text)] == expected


def test_a_planted_flood_of_values_is_capped(tmp_path: Path) -> None:
    """Every known value costs each tool result a substring test: a workspace cannot make
    swetui hold millions of them (a planted `.env` or history)."""
    (tmp_path / ".env").write_text("".join(f"TOKEN_{n}=value-{n:012d}\n"
                                           for n in range(MAX_VALUES + 500)))
    store = SecretStore()
    known = KnownSecrets(tmp_path, store)
    known.refresh()
    assert len(store.values()) == MAX_VALUES and known.notice is not None
    assert "TOKEN_0=[redacted: " in store.redact(f"TOKEN_0=value-{0:012d}")


def test_reading_history_runs_nothing_a_planted_git_config_names(tmp_path: Path) -> None:
    """swetui reads history with git, outside the sandbox: a workspace unpacked from
    someone's tarball carries its own `.git/config`. A signed commit with
    `log.showSignature` ran `gpg.program`; a textconv driver runs on `-p`."""
    pwned = tmp_path / "pwned"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {pwned}\ncat \"$1\" 2>/dev/null\n")
    evil.chmod(0o755)
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".env").write_text(f"STRIPE_KEY={LIVE}\n")
    (root / ".gitattributes").write_text(".env diff=evil\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    tree = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD^{tree}"], check=True,
                          capture_output=True, text=True).stdout.strip()
    signed = (f"tree {tree}\nauthor a <a@b> 1700000000 +0000\n"
              "committer a <a@b> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n"
              " \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n")
    commit = subprocess.run(["git", "-C", str(root), "hash-object", "-t", "commit", "-w",
                             "--stdin"], input=signed, check=True, capture_output=True,
                            text=True).stdout.strip()
    git(root, "update-ref", "HEAD", commit)  # a signed root commit adding .env
    for key, value in [("log.showSignature", "true"), ("gpg.program", str(evil)),
                       ("diff.evil.textconv", str(evil)), ("core.pager", str(evil))]:
        git(root, "config", key, value)
    store = SecretStore()
    KnownSecrets(root, store).refresh()
    assert not pwned.exists()
    assert LIVE in store.values()  # history was still read


def partial_clone(tmp_path: Path) -> Path:
    """A clone of a repository whose history holds a `.env`, lacking its blobs (the
    remote must be asked for them)."""
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q")
    (source / ".env").write_text(f"STRIPE_KEY={LIVE}\n")
    git(source, "add", ".env")
    git(source, "commit", "-qm", "one")
    git(source, "config", "uploadpack.allowFilter", "true")
    root = tmp_path / "ws"
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--no-checkout",
                    f"file://{source}", str(root)], check=True, capture_output=True)
    return root


def test_reading_history_fetches_nothing_for_a_planted_partial_clone(tmp_path: Path) -> None:
    """A partial clone fetches the blobs it lacks when `git log -p` needs them, over its
    remote's transport: a planted remote with `core.sshCommand` would run that command."""
    root = partial_clone(tmp_path)
    pwned = tmp_path / "pwned"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    evil.chmod(0o755)
    git(root, "config", "remote.origin.url", "ssh://evil.example/x")
    git(root, "config", "core.sshCommand", str(evil))
    KnownSecrets(root, SecretStore()).refresh()
    assert not pwned.exists()


def test_a_planted_protocol_setting_allows_no_transport_without_the_lazy_fetch_switch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git older than 2.39.4 ignores `GIT_NO_LAZY_FETCH`; then only the transport rules
    stand, and a planted `protocol.ext.allow=always` outranks `protocol.allow=never`: the
    remote `ext::sh -c ...` ran. Tested here with that switch taken away."""
    monkeypatch.delitem(known_secrets_module.GIT_ENV, "GIT_NO_LAZY_FETCH")
    root = partial_clone(tmp_path)
    pwned = tmp_path / "pwned"
    git(root, "config", "remote.origin.url", f"ext::sh -c touch% {pwned}")
    git(root, "config", "protocol.ext.allow", "always")
    KnownSecrets(root, SecretStore()).refresh()
    assert not pwned.exists()


async def test_the_model_is_told_once_when_not_every_secret_value_is_known(
        ws_root: Path, make_toolbox: Callable[..., Toolbox],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(known_secrets_module, "MAX_VALUES", 3)
    (ws_root / "deploy.env").write_text("".join(f"TOKEN_{n}=value-{n:012d}\n"
                                                for n in range(5)))
    toolbox = make_toolbox("auto")
    first = await toolbox.run(tool_call("bash", command="echo one"))
    second = await toolbox.run(tool_call("bash", command="echo two"))
    assert "not redacted" in first.content and "not redacted" not in second.content


def test_git_reading_history_gets_no_api_key_in_its_environment(
        leaky_history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git runs unconfined on a repository that may come from anyone: whatever it might
    still be made to run must not find swetui's API keys in its environment (the rule for
    every tool). A `git` first on PATH records the environment it was given."""
    api_key = "sk-ant-api03-" + "Zq9x" * 12
    seen = tmp_path / "seen-env"
    shim = tmp_path / "bin"
    shim.mkdir()
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (shim / "git").write_text(f"#!/bin/sh\nenv >> {seen}\nexec {real} \"$@\"\n")
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}:{Path(real).parent}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", api_key)
    store = SecretStore()
    KnownSecrets(leaky_history, store).refresh()
    assert ROTATED in store.values()  # history was read, by the git on PATH
    assert seen.exists() and api_key not in seen.read_text()


def test_a_fifo_named_like_a_secret_file_does_not_stop_every_command(tmp_path: Path) -> None:
    """A workspace from a tarball can hold a FIFO named `.env`: opening it to read waits for
    a writer that never comes, and every command waits on the first (found attacking). It
    is no file of values; the other secret files are still read."""
    os.mkfifo(tmp_path / ".env")
    (tmp_path / "prod.env").write_text(f"STRIPE_KEY={LIVE}\n")
    store = SecretStore()
    reading = threading.Thread(target=KnownSecrets(tmp_path, store).refresh, daemon=True)
    reading.start()
    reading.join(60)
    stuck = reading.is_alive()
    if stuck:  # let the thread go: a writer opens the FIFO
        with open(tmp_path / ".env", "w"):
            pass
    assert not stuck
    assert LIVE in store.values()


def test_history_too_large_to_hold_is_said(leaky_history: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """What git prints is held up to a bound (a planted history could print gigabytes):
    what lies past it is not known, and the model is told, as for a history too slow."""
    monkeypatch.setattr(known_secrets_module, "MAX_HISTORY_BYTES", 40)
    known = KnownSecrets(leaky_history, SecretStore())
    known.refresh()
    assert known.notice is not None and "not read whole" in known.notice


def test_history_is_read_when_the_workspace_is_a_folder_of_the_repository(
        tmp_path: Path) -> None:
    """A package of a monorepo: git gives the names of the files in history from the
    repository's top, and a confined `git log -p` run in the package prints the whole
    repository's history. Asked for them from the package, git found none of them."""
    git(tmp_path, "init", "-q")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "deploy.env").write_text(f"DB_PASSWORD={ROTATED}\n")
    (tmp_path / "pkg" / "app.py").write_text("x = 1\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    git(tmp_path, "rm", "-q", "pkg/deploy.env")
    git(tmp_path, "commit", "-qm", "two")
    store = SecretStore()
    KnownSecrets(tmp_path / "pkg", store).refresh()
    assert ROTATED in store.values()


def stuck_on(fifo: Path, known: KnownSecrets) -> bool:
    """Whether `known.refresh()` is still waiting after 60 s (a safety bound, not a
    figure); it is then let go: a writer opens the FIFO, as often as git opens it."""
    reading = threading.Thread(target=known.refresh, daemon=True)
    reading.start()
    reading.join(60)
    stuck = reading.is_alive()
    while reading.is_alive():
        with contextlib.suppress(OSError):  # no reader at this moment
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reading.join(0.1)
    return stuck


@pytest.mark.parametrize("planted", ["HEAD", "refs/heads/planted"])
def test_a_fifo_in_the_git_folder_does_not_hold_the_first_command(
        leaky_history: Path, planted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """git opens `.git/HEAD` and each ref with a blocking open: a FIFO planted there kept
    the history's git waiting for its whole time limit (20 s), and the first command with
    it. git is not run on such a folder; the model is told why, the secret files are read."""
    monkeypatch.setattr(known_secrets_module, "HISTORY_SECONDS", 3600.0)  # no limit here
    fifo = leaky_history / ".git" / planted
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    (leaky_history / "prod.env").write_text(f"STRIPE_KEY={LIVE}\n")
    store = SecretStore()
    known = KnownSecrets(leaky_history, store)
    assert not stuck_on(fifo, known)
    assert LIVE in store.values()
    assert known.notice is not None and f"{fifo} is a FIFO" in known.notice


def test_a_fifo_in_the_common_git_folder_of_a_linked_worktree_is_found(
        leaky_history: Path, tmp_path_factory: pytest.TempPathFactory,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A linked worktree's `.git` is a file naming its folder, whose `commondir` names the
    main repository's: git reads the refs there too."""
    monkeypatch.setattr(known_secrets_module, "HISTORY_SECONDS", 3600.0)
    linked = tmp_path_factory.mktemp("linked") / "tree"
    git(leaky_history, "worktree", "add", "-q", str(linked))
    fifo = leaky_history / ".git" / "refs" / "tags" / "planted"
    os.mkfifo(fifo)
    known = KnownSecrets(linked, SecretStore())
    assert not stuck_on(fifo, known)
    assert known.notice is not None and "is a FIFO" in known.notice


def test_a_fifo_in_an_object_folder_the_repository_borrows_from_is_found(
        leaky_history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`.git/objects/info/alternates` names object folders git reads as its own (a tarball
    can ship one pointing into the workspace): a FIFO there, in place of an object the
    history needs, held the history's git for its whole time limit."""
    monkeypatch.setattr(known_secrets_module, "HISTORY_SECONDS", 3600.0)
    blob = subprocess.run(["git", "-C", str(leaky_history), "rev-parse", "HEAD~1:server.key"],
                          capture_output=True, text=True, check=True).stdout.strip()
    loose = leaky_history / ".git" / "objects" / blob[:2] / blob[2:]
    borrowed = leaky_history / "vendor" / "objects"
    fifo = borrowed / blob[:2] / blob[2:]
    fifo.parent.mkdir(parents=True)
    loose.unlink()
    os.mkfifo(fifo)
    (leaky_history / ".git" / "objects" / "info" / "alternates").write_text(f"{borrowed}\n")
    known = KnownSecrets(leaky_history, SecretStore())
    assert not stuck_on(fifo, known)
    assert known.notice is not None and f"{fifo} is a FIFO" in known.notice
