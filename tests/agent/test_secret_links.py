"""A secret file reached by another name: a cloned repository plants `settings.py -> .env`,
a link to another project's `prod.env`, a link to a credentials directory, or a hard link
of `.env`. Neither the reader that lets commands run unasked (no sandbox) nor the kernel
sandbox may judge by the name the command uses: what is read is the target."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.sandbox import Sandbox, probe
from swetui.agent.sandbox.secret_paths import HOME_SECRETS, home_secrets, secret_target
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.harmless import is_harmless
from tests.agent.conftest import tool_call
from tests.agent.test_retrieval_reaches_the_request import offline_session

KEY = "sk-ant-planted-LINKED-0123456789abcdef"


@pytest.fixture
def linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace whose innocent names reach secrets, and an innocent link."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bash_history").write_text(f"export KEY={KEY}\n")
    monkeypatch.setenv("HOME", str(home))
    other = tmp_path / "other"
    (other / ".aws").mkdir(parents=True)
    (other / "prod.env").write_text(f"PROD={KEY}\n")
    (other / ".aws" / "config").write_text(f"aws_secret_access_key={KEY}\n")
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / ".env").write_text(f"API_KEY={KEY}\n")
    (root / "settings.py").symlink_to(".env")
    (root / "config.py").symlink_to(other / "prod.env")
    (root / "keys").symlink_to(other / ".aws")
    os.link(root / ".env", root / "notes.txt")
    (root / "vault").mkdir()
    os.link(root / ".env", root / "vault" / "copy.txt")
    os.link(home / ".bash_history", root / "history.txt")  # a home secret by another name
    (root / "docs" / "readme.txt").write_text("read me\n")
    (root / "README.md").symlink_to("docs/readme.txt")
    return root


SECRET_READS = ["cat settings.py", "cat ./settings.py", "head -5 config.py", "cat notes.txt",
                "cat < settings.py", "cat s*.py", "cat keys/config", "tail ~/.bash_history",
                "wc -c n*.txt", "grep -r API_KEY vault", "rg API_KEY vault",
                "cat history.txt"]


@pytest.mark.parametrize("command", SECRET_READS)
def test_a_secret_reached_by_another_name_is_not_harmless(command: str, linked: Path) -> None:
    assert not is_harmless(command, str(linked))


@pytest.mark.parametrize("command", ["cat README.md", "cat docs/readme.txt", "wc -l *.md",
                                     "grep -r read docs"])
def test_an_innocent_link_stays_harmless(command: str, linked: Path) -> None:
    assert is_harmless(command, str(linked))


def confined(root: Path, command: str) -> str:
    """What `command` prints run in the kernel sandbox of `root`."""
    sandbox = Sandbox(root, cover=())
    try:
        done = subprocess.run(sandbox.argv(command, "/bin/bash", confine=True), cwd=root,
                              capture_output=True, text=True, timeout=60)
    finally:
        sandbox.close()
    return done.stdout + done.stderr


SANDBOX_READS = [
    "cat settings.py", "cp settings.py x; cat x", "cat config.py", "cat notes.txt",
    "cat keys/config", "ln -s .env mine; cat mine", "cat ../other/prod.env",
    "python3 -c " + shlex.quote("print(open('settings.py').read())"),
    "python3 -c " + shlex.quote("import os; os.symlink('notes.txt', 'l'); print(open('l').read())"),
    "tar c . 2>/dev/null | strings", "cat history.txt",
]


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
def test_the_sandbox_covers_a_secret_whatever_name_reaches_it(linked: Path) -> None:
    assert "read me" in confined(linked, "cat README.md")  # the link itself still works
    leaked = [command for command in SANDBOX_READS if KEY in confined(linked, command)]
    assert leaked == []


async def test_the_read_tools_refuse_a_hard_link_of_a_secret(toolbox: Toolbox,
                                                             ws_root: Path) -> None:
    (ws_root / ".env").write_text(f"API_KEY={KEY}\n")
    os.link(ws_root / ".env", ws_root / "notes.txt")
    (ws_root / "plain.txt").write_text("API_KEY is documented here\n")
    read = await toolbox.run(tool_call("read_file", path="notes.txt"))
    assert read.is_error and KEY not in read.content
    found = await toolbox.run(tool_call("grep", pattern="API_KEY", path="."))
    assert "plain.txt" in found.content and KEY not in found.content


async def test_retrieval_never_sends_a_hard_link_of_a_secret(tmp_path: Path) -> None:
    """A request's words grep the workspace: `notes.txt`, another name of `.env`, must not
    be one of the files searched (the key would reach the model in a grep block)."""
    (tmp_path / ".env").write_text(f"STRIPE_TOKEN={KEY}\n")
    os.link(tmp_path / ".env", tmp_path / "notes.txt")
    (tmp_path / "DEPLOY.md").write_text("Set STRIPE_TOKEN in the vault before deploying.\n")
    async with offline_session(tmp_path) as (session, provider):
        finished = await session.send("where is STRIPE_TOKEN used?")
        assert finished.error is None
        sent = provider.requests[0].context
        assert "DEPLOY.md" in sent and KEY not in sent


@pytest.mark.parametrize("command", ["cat ../other/billing.py", "ls ..", "head ../../x.txt",
                                     "grep -r KEY ../other", "wc -l /srv/app/settings.py"])
def test_reading_outside_what_the_sandbox_reads_is_not_harmless(command: str,
                                                                tmp_path: Path) -> None:
    """Without a sandbox, the reader allows what the kernel would: the workspace, the
    system and the toolchains; another project's files ask (their secrets have no rule's
    name: `billing.py` holding a key)."""
    root = tmp_path / "projects" / "app"
    root.mkdir(parents=True)
    (tmp_path / "projects" / "other").mkdir()
    (tmp_path / "projects" / "other" / "billing.py").write_text(f"STRIPE = '{KEY}'\n")
    assert not is_harmless(command, str(root))
    assert is_harmless("cat /etc/os-release && ls && echo ..", str(root))


@pytest.mark.parametrize("command", ["cat /proc/1/environ", "strings /proc/self/environ",
                                     "grep -a KEY /proc/1/environ", "cat /proc/1/cmdline",
                                     "cat /etc/shadow", "head /etc/ssl/private/server.key",
                                     "cat /proc/1/fd/3", "cat /proc/1/cwd/app.py"])
def test_another_process_or_a_system_secret_is_not_harmless(command: str,
                                                            tmp_path: Path) -> None:
    """Found attacking: without a sandbox, `cat /proc/1/environ` ran unasked, and the
    user's shell's environment holds their API keys (a sandbox has its own /proc); a link
    of another process that cannot be read (`/proc/1/fd/3`) raised instead of asking."""
    assert not is_harmless(command, str(tmp_path))
    assert is_harmless("cat /proc/cpuinfo && cat /etc/os-release", str(tmp_path))


def test_git_printing_contents_is_not_harmless_when_git_tracks_a_secret(tmp_path: Path) -> None:
    """Found attacking: with `.env` committed and changed, `git diff` ran unasked without a
    sandbox and printed the new key (git reads the working tree itself)."""
    for root, tracked in ((tmp_path / "careless", ".env"), (tmp_path / "tidy", "app.py")):
        root.mkdir()
        (root / tracked).write_text(f"API_KEY={KEY}\n")
        for args in (["init", "-q"], ["add", tracked],
                     ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
            subprocess.run(["git", *args], cwd=root, check=True)
        (root / tracked).write_text(f"API_KEY={KEY}-new\n")
    for command in ("git diff", "git show HEAD", "git log -p -1", "git blame .env"):
        assert not is_harmless(command, str(tmp_path / "careless")), command
    for command in ("git status", "git log --oneline"):
        assert is_harmless(command, str(tmp_path / "careless")), command
    assert is_harmless("git diff", str(tmp_path / "tidy"))


@pytest.mark.parametrize("command", ["diff --from-file=.env app.py", "diff --to-file=.env app.py",
                                     "wc --files0-from=.env", "du --files0-from=.env",
                                     "diff --from-file=../other/.env app.py"])
def test_a_file_named_in_an_option_is_judged_as_any_other(command: str, tmp_path: Path) -> None:
    """`diff --from-file=.env app.py` prints .env's lines, `wc --files0-from=.env` prints
    them in its error: the file an option names is read as much as an operand."""
    root = tmp_path / "app"
    root.mkdir()
    (root / ".env").write_text("TOKEN=sk-ant-planted-0123456789abcdef\n")
    (root / "app.py").write_text("print('app')\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / ".env").write_text("TOKEN=sk-ant-planted-0123456789abcdef\n")
    shown = subprocess.run(command, shell=True, cwd=root, capture_output=True, text=True)
    assert "sk-ant-planted" in shown.stdout + shown.stderr  # what running it unasked shows
    assert not is_harmless(command, str(root))
    for innocent in ("diff --from-file=app.py app.py", "sort --key=1 app.py",
                     "grep -n --include=*.py app app.py", "ls --hide=*.pyc"):
        assert is_harmless(innocent, str(root)), innocent


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
def test_a_hard_link_of_a_secret_inside_git_metadata_is_covered(tmp_path: Path) -> None:
    """Found attacking: the walk for other names of secrets skipped `.git/` (bound
    read-only, not walked), so `.git/stash-note`, a hard link of `.env`, printed the key."""
    (tmp_path / ".git" / "refs").mkdir(parents=True)
    (tmp_path / ".env").write_text(f"API_KEY={KEY}\n")
    os.link(tmp_path / ".env", tmp_path / ".git" / "stash-note")
    os.link(tmp_path / ".env", tmp_path / ".git" / "refs" / "note")
    out = confined(tmp_path, "cat .git/stash-note .git/refs/note; ls .git")
    assert KEY not in out and "stash-note" in out


@given(st.lists(st.text(alphabet="abc-_. é", min_size=1, max_size=6).filter(
    lambda part: part not in (".", "..")), min_size=0, max_size=4))
def test_the_home_s_credentials_are_found_under_whatever_home(parts: list[str]) -> None:
    """Law: the home's credential paths are HOME_SECRETS under the home as pathlib joins
    them, for any home, asked anew after the home changes (they are kept per home)."""
    home = "/" + "/".join(parts)
    before = os.environ.get("HOME")
    os.environ["HOME"] = home
    try:
        assert home_secrets() == [str(Path(home) / name) for name in HOME_SECRETS]
    finally:
        if before is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = before


def test_a_link_into_a_home_set_later_is_a_secret(tmp_path: Path, monkeypatch) -> None:
    """The credentials are those of the home as it is when asked, not when first asked."""
    (tmp_path / "ws").mkdir()
    for name in ("first", "second"):
        (tmp_path / name / ".config" / "gh").mkdir(parents=True)
        (tmp_path / name / ".config" / "gh" / "hosts.yml").write_text("oauth_token: gho_x\n")
    (tmp_path / "ws" / "notes.txt").symlink_to(tmp_path / "second" / ".config" / "gh" /
                                               "hosts.yml")
    monkeypatch.setenv("HOME", str(tmp_path / "first"))
    assert not secret_target("notes.txt", str(tmp_path / "ws"))
    monkeypatch.setenv("HOME", str(tmp_path / "second"))
    assert secret_target("notes.txt", str(tmp_path / "ws"))
