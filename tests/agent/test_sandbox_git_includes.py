"""git inside the sandbox with a `~/.gitconfig` that includes other files (the common
`[include] path = ~/.gitconfig.local` keeping a token or the e-mail out of a dotfiles
repository; `[includeIf "gitdir:~/work/"]` for a work identity): the files the user's configs
include are readable to a confined command, without their credentials. Before, the sandbox
granted `~/.gitconfig` but not what it includes, and every git command stopped with "bad
config line" (since the home stopped being readable, cb629d7). A workspace's own
`.git/config` (which may come with a tarball) opens nothing outside by including it."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swetui.agent.sandbox import Sandbox, probe
from swetui.agent.sandbox.git_includes import (
    MAX_TOTAL_BYTES,
    followed,
    include_paths,
    read_config,
)
from swetui.agent.sandbox.git_includes import settings as config_settings
from tests.agent.test_sandbox_reads_outside import confined

KEY = "ghp_plantedINCLUDED0123456789abcdef0123"
confinable = pytest.mark.skipif(not probe().available,
                                reason=f"no kernel sandbox here: {probe().detail}")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "config.d").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return home


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "shop"
    root.mkdir(parents=True)
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    (root / "app.py").write_text("print('hi')\n")
    return root


@confinable
def test_git_reads_the_files_the_users_config_includes_without_their_tokens(
        tmp_path: Path, home: Path) -> None:
    team = tmp_path / "shared" / "team.gitconfig"
    team.parent.mkdir()
    team.write_text("[alias]\n\tst = status --short\n")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Ada Tester\n"
        "[include]\n\tpath = ~/.gitconfig.local\n"          # home-relative, holds a token
        "\tpath = config.d/editor\n"                         # relative to ~/.gitconfig
        f'[include] path = "{team}" ; absolute, same line\n'
        f'[includeIf "gitdir:{tmp_path}/work/"]\n\tpath = ~/config.d/work\n'
        "[include]\n\tpath = ~/no-such.gitconfig\n")         # missing: git skips it
    (home / ".gitconfig.local").write_text(
        f'[url "https://x-access-token:{KEY}@github.com/"]\n'
        "\tinsteadOf = https://github.com/\n[github]\n\tuser = ada\n")
    (home / "config.d" / "editor").write_text("[core]\n\teditor = vi\n")
    (home / "config.d" / "work").write_text("[user]\n\temail = ada@work.example\n")
    (home / "diary.txt").write_text("not a config\n")
    root = workspace(tmp_path)
    code, out = confined(root, "git config --list --show-origin; git st; git add app.py;"
                               " cat ~/.gitconfig.local; cat ~/diary.txt")
    assert "bad config" not in out and "unable to access" not in out, out
    assert "github.user=ada" in out and "core.editor=vi" in out  # included files read
    assert "alias.st=status --short" in out and "?? app.py" in out  # absolute one, alias ran
    assert "user.email=ada@work.example" in out  # includeIf gitdir: held here
    assert "insteadof=https://github.com/" in out.lower()
    assert KEY not in out and "x-access-token" not in out
    assert "diary.txt: Permission denied" in out  # the home itself stays closed
    assert KEY in (home / ".gitconfig.local").read_text()


@confinable
def test_a_workspace_config_including_a_file_outside_opens_nothing(
        tmp_path: Path, home: Path) -> None:
    """A tarball's `.git/config` naming the user's private files, and a `~/.gitconfig`
    that includes a file of the workspace (which anyone may have written) naming them: the
    confined command reads neither."""
    private = home / "private.txt"
    private.write_text(f"token {KEY}\n")
    root = workspace(tmp_path)
    with (root / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {private}\n")
    (root / "team.gitconfig").write_text(f"[include]\n\tpath = {private}\n")
    (home / ".gitconfig").write_text(f"[include]\n\tpath = {root}/team.gitconfig\n")
    code, out = confined(root, f"cat {private}; git config --list")
    assert KEY not in out
    assert f"{private}: Permission denied" in out


@confinable
def test_an_include_cycle_and_a_directory_included_grant_nothing_and_end(
        tmp_path: Path, home: Path) -> None:
    root = workspace(tmp_path)
    (home / ".gitconfig").write_text("[include]\n\tpath = config.d/a\n\tpath = ~\n")
    (home / "config.d" / "a").write_text("[include]\n\tpath = ./b\n")
    (home / "config.d" / "b").write_text("[include]\n\tpath = ../config.d/a\n")
    (home / "diary.txt").write_text("not a config\n")
    listed = followed([str(home / ".gitconfig")], [], str(home), str(root)).paths
    assert sorted(listed) == sorted(
        [str(home / ".gitconfig"), str(home / "config.d" / "a"), str(home / "config.d" / "b"),
         str(home)])
    outside = subprocess.run(["git", "-C", str(root), "config", "--list"],
                             capture_output=True, text=True)
    code, out = confined(root, "git config --list; echo ran; cat ~/diary.txt")
    assert "ran" in out and "diary.txt: Permission denied" in out
    # git says the same in the sandbox as outside (it refuses a cycle itself)
    assert ("exceeded maximum include depth" in out) == \
        ("exceeded maximum include depth" in outside.stderr)


@confinable
def test_a_directory_among_the_readable_files_grants_nothing(tmp_path: Path) -> None:
    """The helper grants a file of `readable_files` only while it is a regular file: a
    directory put there since (by a race, or a bug) would grant its whole tree."""
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "notes.txt").write_text(f"{KEY}\n")
    root = tmp_path / "ws"
    root.mkdir()
    sandbox = Sandbox(root, cover=())
    try:
        argv = sandbox.argv(f"cat {tmp_path}/secret/notes.txt", "/bin/bash", confine=True)
        spec = json.loads(argv[5])
        spec["readable_files"] = [str(tmp_path / "secret")]
        argv[5] = json.dumps(spec)
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=120)
    finally:
        sandbox.close()
    assert KEY not in done.stdout and "Permission denied" in done.stderr


_HEADERS = st.sampled_from(["[include]", "[Include]", '[includeIf "gitdir:/x/"]',
                            '[include "x"]', "[includeif.x]", "[user]", "[ include]",
                            '[includeIf "a\\"b"]', "[a.B]", '[includeIf "gitdir:~/w.d/"]'])
_VALUES = st.lists(st.sampled_from(["a", "b", " ", "~/", ".", '"', "\\n", "\\\\", '\\"', ";x",
                                    "#", "\t", "\\\n", "\\t"]), max_size=8).map("".join)
_TEXTS = st.lists(st.tuples(st.sampled_from(["", ""]) | _HEADERS,
                            st.sampled_from(["\n", "\r\n", " ", "\\\n", "\n  "]),
                            st.sampled_from(["path", "PATH", "name", "x-y", "pa th"]),
                            st.sampled_from([" = ", "=", "\t=  ", "", " "]), _VALUES,
                            st.sampled_from(["\n", "\r\n", "\n\n", "\\\n", " # c\n"])),
                  max_size=6).map(lambda parts: "".join(
                      f"{head}{first if head else ''}{key}{eq}{value}{end}"
                      for head, first, key, eq, value, end in parts))


def _git_settings(text: str) -> list[tuple[str, str]] | None:
    with tempfile.NamedTemporaryFile("w", delete=False, newline="", suffix=".gitconfig") as f:
        f.write(text)
    try:
        done = subprocess.run(["git", "config", "-f", f.name, "--no-includes", "--null",
                               "--list"], capture_output=True)
    finally:
        os.unlink(f.name)
    if done.returncode != 0:
        return None  # git refuses the file: it stops there, whatever we read
    entries = done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]
    return [(entry.split("\n", 1)[0], entry.split("\n", 1)[1]) for entry in entries
            if "\n" in entry]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS)
def test_a_config_is_read_as_git_reads_it(text: str) -> None:
    """The settings (and so the include paths) read from a config are git's own, checked
    against git itself: sections sharing a line, quotes, escapes, comments, `\\` joins."""
    expected = _git_settings(text)
    # whether git reads the file whole decides whether a file a config includes is
    # granted to a confined command (`followed`)
    refused_at = read_config(text)[1]
    assert (refused_at is None) == (expected is not None), (text, expected)
    if refused_at is not None:  # the lines shown of a file git refuses, git reads whole
        shown = "".join(line + "\n" for line in text.split("\n")[:refused_at])
        assert _git_settings(shown) is not None, (text, shown)
    if expected is not None:
        assert config_settings(text) == expected
        assert include_paths(text) == [value for name, value in expected if value and (
            name == "include.path" or (name.startswith("includeif.") and
                                       name.endswith(".path") and name.count(".") >= 2))]


@confinable
def test_git_reads_the_config_git_config_global_names_without_its_token(
        tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`GIT_CONFIG_GLOBAL` (git reads it instead of `~/.gitconfig`) naming a file outside
    the home's toolchains: readable to git in the sandbox, without its credentials."""
    chosen = tmp_path / "dotfiles" / "git" / "config"
    chosen.parent.mkdir(parents=True)
    chosen.write_text(f"[user]\n\tname = Ada Global\n[http]\n\textraheader = AUTHORIZATION: "
                      f"bearer {KEY}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(chosen))
    root = workspace(tmp_path)
    code, out = confined(root, "git config --list; cat $GIT_CONFIG_GLOBAL")
    assert "user.name=Ada Global" in out and "unable to access" not in out, out
    assert KEY not in out


@confinable
def test_a_token_in_a_form_read_line_by_line_misses_never_reaches_git(
        tmp_path: Path, home: Path) -> None:
    """git reads a setting beside its header (`[http] extraheader = …`) and a value
    continued on the next line with `\\`; the scrubber worked line by line and printed the
    token of both (now that included files are readable). Both are scrubbed now; a config
    whose token the scrubber still cannot take out (a `]` inside the header's quotes) is
    made unreadable instead: git stops, naming it, rather than print the token."""
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig.local\n"
                                     "\tpath = ~/.gitconfig.ci\n")
    (home / ".gitconfig.local").write_text(
        f"[http] extraheader = AUTHORIZATION: bearer {KEY}\n[github]\n\tuser = ada\n")
    (home / ".gitconfig.ci").write_text(
        f"[http]\n\textraheader = AUTHORIZATION: \\\n\t\tbearer {KEY}\n"
        f'[remote "mirror"]\n\turl = https://ci:\\\n{KEY}@git.example/shop.git\n')
    root = workspace(tmp_path)
    code, out = confined(root, "git config --list; cat ~/.gitconfig.local ~/.gitconfig.ci")
    assert KEY not in out
    assert "github.user=ada" in out and "remote.mirror.url=" in out  # git reads both
    assert "[http] extraheader = [removed by swetui's sandbox]" in out
    (home / ".gitconfig.odd").write_text(
        f'[http "https://git.example/a]b"] extraheader = AUTHORIZATION: bearer {KEY}\n')
    with (home / ".gitconfig").open("a") as config:
        config.write("\tpath = ~/.gitconfig.odd\n")
    code, out = confined(root, "git config --list; cat ~/.gitconfig.odd")
    assert KEY not in out
    assert ".gitconfig.odd': Permission denied" in out  # git names the one it cannot read


@confinable
def test_a_config_git_refuses_shows_no_token_after_the_line_it_stops_at(
        tmp_path: Path, home: Path) -> None:
    """git stops reading a config at a line it refuses (and fails), but `cat` reads on: a
    token continued with `\\` below that line was scrubbed all the same. Now nothing from
    the refused line on is shown at all, and git stops at the same line as outside."""
    root = workspace(tmp_path)
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig.local\n")
    (home / ".gitconfig.local").write_text(
        f"[http]\n\tthis is no setting\n\textraheader = AUTHORIZATION: \\\n\t  bearer {KEY}\n")
    outside = subprocess.run(["git", "-C", str(root), "config", "--list"],
                             capture_output=True, text=True)
    assert "bad config line 2 in file" in outside.stderr
    code, out = confined(root, "git config --list; cat ~/.gitconfig.local")
    assert "bad config line 2 in file" in out  # as outside the sandbox
    assert KEY not in out and "this is no setting" not in out and "[http]" in out


@confinable
def test_a_flood_of_planted_configs_is_covered_past_what_is_read_and_a_change_is_seen(
        tmp_path: Path, home: Path) -> None:
    """A tarball's `.git/modules` can hold hundreds of large configs, all read and scrubbed
    before every command (200 of 1 MiB: 75-160 s a command). The user's own configs are
    read first; past `MAX_TOTAL_BYTES` the rest are not read and not shown. A config is
    judged again once it changes, whatever its size and time say."""
    root = workspace(tmp_path)
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig.local\n")
    (home / ".gitconfig.local").write_text(f"[user]\n\tname = Ada{' Lovelace' * 8}\n")
    line = '[remote "origin"]\n\turl = https://example.com/x.git\n'
    for number in range(12):
        module = root / ".git" / "modules" / f"m{number}"
        module.mkdir(parents=True)
        (module / "HEAD").write_text("ref: refs/heads/main\n")
        (module / "config").write_text(line * (MAX_TOTAL_BYTES // len(line) // 10))
    code, out = confined(root, "git config user.name; for m in .git/modules/*/config; do "
                               "head -c1 $m >/dev/null 2>&1 && echo READ || echo DENIED; done")
    assert "Ada" in out  # the user's configs are read first
    # each a tenth of what is read in all, the user's configs first: 9 fit, 3 do not
    assert out.count("READ") == 9 and out.count("DENIED") == 3, out
    local = home / ".gitconfig.local"
    before = local.stat()
    local.write_text(f"[github]\n\ttoken = {KEY}\n".ljust(before.st_size))  # same size,
    os.utime(local, ns=(before.st_atime_ns, before.st_mtime_ns))  # the old time back
    assert local.stat().st_size == before.st_size and local.stat().st_ino == before.st_ino
    code, out = confined(root, "cat ~/.gitconfig.local")
    assert KEY not in out and "token = [removed" in out


@confinable
def test_a_linked_include_grants_a_config_and_not_a_file_that_is_none(
        tmp_path: Path, home: Path) -> None:
    """Dotfile managers (stow, home-manager, chezmoi) install `~/.gitconfig.local` as a link:
    git reads the target, so the sandbox grants it. A link (or path) to a file that is no git
    config (here a diary, named by an `includeIf` that holds nowhere, so git never reads it)
    was granted too, whatever it held (found reviewing, session 12); a file git reads whole
    as a config is granted, nothing else."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "gitconfig.local").write_text("[user]\n\tname = Stowed Ada\n")
    (dotfiles / "diary.txt").write_text("Dear diary, PLANTED-private-words\n")
    (home / ".gitconfig.local").symlink_to(dotfiles / "gitconfig.local")
    (home / ".diary").symlink_to(dotfiles / "diary.txt")
    (home / ".gitconfig").write_text('[include]\n\tpath = ~/.gitconfig.local\n'
                                     '[includeIf "gitdir:/nowhere/at/all/"]\n'
                                     '\tpath = ~/.diary\n')
    root = workspace(tmp_path)
    outside = subprocess.run(["git", "config", "user.name"], cwd=root, capture_output=True,
                             text=True)
    assert outside.stdout == "Stowed Ada\n", outside.stderr
    code, out = confined(root, "git config user.name; git status --short; cat ~/.diary; "
                               f"cat {dotfiles}/diary.txt")
    assert "Stowed Ada\n" in out and "?? app.py" in out, out
    assert "PLANTED-private-words" not in out, out
