"""Credentials inside places a confined command must read: git's configs (a token in a
remote's URL, the `http.extraheader` a CI checkout leaves in `.git/config`, an `insteadOf`
URL with a token in `~/.gitconfig`) and the system's credential files. The command sees
git's configs without the credentials (git still commits, names its remotes), and the
system's credential files not at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.sandbox import probe
from swetui.agent.sandbox.scrubbed import scrub
from tests.agent.test_sandbox_reads_outside import confined

KEY = "ghp_plantedGITCONFIG0123456789abcdef"
confinable = pytest.mark.skipif(not probe().available,
                                reason=f"no kernel sandbox here: {probe().detail}")


@confinable
def test_git_runs_without_seeing_the_tokens_in_its_configs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f'[user]\n\tname = Ada Tester\n\temail = ada@example.com\n'
        f'[url "https://{KEY}@github.com/"]\n\tinsteadOf = https://github.com/\n')
    monkeypatch.setenv("HOME", str(home))
    root = tmp_path / "ws"
    root.mkdir()
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "remote", "add", "origin",
                    f"https://x-access-token:{KEY}@github.com/acme/shop.git"], check=True)
    subprocess.run([*git, "config", "http.https://github.com/.extraheader",
                    f"AUTHORIZATION: basic {KEY}"], check=True)
    (root / "app.py").write_text("print('hi')\n")
    code, out = confined(root, "cat ~/.gitconfig .git/config; git config --list --show-origin;"
                               " git remote -v; grep -r github .git/config ~/.gitconfig;"
                               " git add app.py && git -c core.hooksPath=/dev/null commit -q"
                               " -m one --no-gpg-sign --no-verify 2>&1 | tail -1;"
                               " cp .git/config copied; cat copied")
    assert KEY not in out, out
    assert "github.com/acme/shop.git" in out and "Ada Tester" in out  # configs still read
    assert "x-access-token" not in out
    assert code == 0, out
    # The originals are untouched (the commit was refused: .git is read-only inside).
    assert KEY in (root / ".git" / "config").read_text()
    assert KEY in (home / ".gitconfig").read_text()


SYSTEM_CREDENTIALS = ("/etc/apt/auth.conf", "/etc/apt/auth.conf.d", "/etc/mysql/debian.cnf",
                      "/etc/NetworkManager/system-connections", "/etc/ipsec.secrets",
                      "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets")
"""Where Debian-like systems keep package-repository, database, VPN and dial-up passwords."""


@confinable
def test_the_systems_credential_files_are_covered(tmp_path: Path) -> None:
    present = [path for path in SYSTEM_CREDENTIALS if Path(path).exists()]
    if not present:
        pytest.skip("none of the system's credential files exist here")
    code, out = confined(tmp_path, " ; ".join(f"test -r {path} && echo READABLE {path}"
                                              for path in present))
    assert "READABLE" not in out, out


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_scrubbing_never_adds_and_is_idempotent(text: str) -> None:
    once = scrub(text)
    assert scrub(once) == once
    assert once.count("\n") == text.count("\n")


@confinable
def test_a_submodules_config_is_shown_without_its_token(tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"]
    subprocess.run([*git, "-C", str(library), "init", "-q"], check=True)
    (library / "lib.py").write_text("X = 1\n")
    subprocess.run([*git, "-C", str(library), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(library), "commit", "-qm", "lib"], check=True)
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run([*git, "-C", str(root), "init", "-q"], check=True)
    subprocess.run([*git, "-C", str(root), "submodule", "add", "-q", str(library), "vendor/lib"],
                   check=True, capture_output=True)
    subprocess.run([*git, "-C", str(root / "vendor" / "lib"), "remote", "set-url", "origin",
                    f"https://oauth2:{KEY}@gitlab.example/acme/lib.git"], check=True)
    code, out = confined(root, "cat .git/modules/vendor/lib/config; "
                               "git -C vendor/lib remote -v; git -C vendor/lib log --oneline")
    assert KEY not in out, out
    assert "gitlab.example/acme/lib.git" in out and "lib" in out


@confinable
def test_a_config_git_includes_is_shown_without_its_token(tmp_path: Path) -> None:
    """A repository's config may include another file (`[include] path = creds.inc`, or
    `[includeIf "gitdir:…"]`) holding the `http.extraheader` or a token URL: it was printed
    whole inside the sandbox, and git read the credential from it (found attacking
    c88a57f)."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(root), "config", "user.name", "Ada Tester"], check=True)
    with (root / ".git" / "config").open("a") as config:
        config.write('[include]\n\tpath = creds.inc\n[includeIf "gitdir:/"]\n'
                     '\tpath = ../.git/more.inc\n')
    (root / ".git" / "creds.inc").write_text(
        f"[http]\n\textraheader = AUTHORIZATION: basic {KEY}\n")
    (root / ".git" / "more.inc").write_text(f'[url "https://{KEY}@github.com/"]\n'
                                             "\tinsteadOf = https://github.com/\n")
    code, out = confined(root, "cat .git/creds.inc .git/more.inc; git config --list")
    assert KEY not in out, out
    assert "Ada Tester" in out and "insteadof=https://github.com/" in out.lower()
    assert code == 0, out


def test_a_config_including_a_fifo_does_not_stop_the_sandbox(tmp_path: Path) -> None:
    """`[include] path = pipe` with `pipe` a FIFO (a tarball's `.git/` can hold both): the
    included configs are read before every confined command, and opening the FIFO waited for
    a writer for ever (found reviewing). It is skipped, like an unreadable file."""
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    (git_dir / "config").write_text("[include]\n\tpath = pipe\n")
    os.mkfifo(git_dir / "pipe")
    # in a process of its own: a hang is killed there (a bound on a hang, not a timing
    # assertion), where a blocked thread would outlive the test
    listed = subprocess.run(
        [sys.executable, "-c", "import sys; from swetui.agent.sandbox.git_includes import "
         "followed; print(followed([], [sys.argv[2] + '/config'], sys.argv[1], '/nowhere'))",
         str(tmp_path / "home"), str(git_dir)], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert str(git_dir / "pipe") in listed.stdout  # named, so a later regular file is covered


@confinable
def test_terraform_state_and_tools_credential_files_in_the_workspace_are_covered(
        tmp_path: Path) -> None:
    """Terraform's state holds every resource's attributes (a database password among
    them) in plain text; `.my.cnf`, `.s3cfg`, `.vault-token`, a service account's key
    file hold credentials by design. A confined `cat` printed them (found attacking)."""
    root = tmp_path / "ws"
    (root / "infra").mkdir(parents=True)
    (root / "infra" / "terraform.tfstate").write_text(
        f'{{"resources": [{{"instances": [{{"attributes": {{"password": "{KEY}"}}}}]}}]}}\n')
    (root / ".my.cnf").write_text(f"[client]\npassword = {KEY}\n")
    (root / ".vault-token").write_text(f"{KEY}\n")
    (root / "shop-firebase-adminsdk-x1.json").write_text(f'{{"private_key": "{KEY}"}}\n')
    (root / "main.tf").write_text('resource "aws_db_instance" "shop" {}\n')
    code, out = confined(root, "cat infra/terraform.tfstate .my.cnf .vault-token "
                               "shop-firebase-adminsdk-x1.json main.tf; grep -r password .")
    assert KEY not in out
    assert "aws_db_instance" in out  # the configuration itself is read


@confinable
def test_a_known_token_under_a_setting_named_like_nothing_secret_is_not_shown(
        tmp_path: Path) -> None:
    """Found attacking: `[hub] user = ghp_…` (a tool's token under a plain name) was left in
    the config a command reads, whole: the name rules saw no credential, and the command
    printed the token. A known token format goes whatever the setting is called; git still
    reads the rest of the config."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    with (root / ".git" / "config").open("a") as config:
        config.write(f"[hub]\n\tuser = {KEY}\n[user]\n\tname = Ada Tester\n")
    code, out = confined(root, "cat .git/config; git config --get user.name")
    assert KEY not in out, out
    assert code == 0 and "Ada Tester" in out, out
