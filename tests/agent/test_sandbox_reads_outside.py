"""What a confined command can read outside its workspace: the system and the user's
toolchains, not the user's other projects or a secret kept anywhere else (`cat
../other/.env`, `cat /some/where/prod.env`), whatever its name. Ordinary work still runs:
python, a venv inside or outside the workspace, git (also in a git worktree), ls and grep."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.sandbox import Sandbox, probe
from swetui.agent.toolbox import Toolbox
from swetui.config import Settings
from swetui.engine.bus import EventBus
from tests.agent.conftest import tool_call
from tests.agent.test_sandbox import approving

pytestmark = pytest.mark.skipif(not probe().available,
                                reason=f"no kernel sandbox here: {probe().detail}")

KEY = "sk-ant-planted-ELSEWHERE-0123456789abcdef"


def confined(root: Path, command: str, readable: tuple[str, ...] = ()) -> tuple[int, str]:
    """(exit code, output) of `command` run in the kernel sandbox of `root`."""
    sandbox = Sandbox(root, cover=(), readable=readable)
    try:
        done = subprocess.run(sandbox.argv(command, "/bin/bash", confine=True), cwd=root,
                              capture_output=True, text=True, timeout=120)
    finally:
        sandbox.close()
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """A workspace beside another project and a secret under a name no rule knows."""
    root = tmp_path / "projects" / "app"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('app runs')\n")
    other = tmp_path / "projects" / "other"
    other.mkdir()
    (other / ".env").write_text(f"TOKEN={KEY}\n")
    (other / "billing.py").write_text(f"STRIPE = '{KEY}'\n")
    (tmp_path / "some" / "where").mkdir(parents=True)
    (tmp_path / "some" / "where" / "prod.conf").write_text(f"password = {KEY}\n")
    return root


def test_nothing_outside_the_workspace_but_the_system_can_be_read(projects: Path) -> None:
    elsewhere = projects.parent.parent / "some" / "where"
    for command in ["cat ../other/.env", "cat ../other/billing.py", "grep -r TOKEN ..",
                    f"cat {elsewhere}/prod.conf", f"cp {elsewhere}/prod.conf x; cat x",
                    "python3 -c \"print(open('../other/billing.py').read())\"",
                    "ln -s ../other/billing.py b.py; cat b.py", "tar c .. 2>/dev/null"]:
        code, out = confined(projects, command)
        assert KEY not in out, command
    code, out = confined(projects, "ls ..")
    assert code != 0 and "other" not in out  # not even the names of other projects


def test_ordinary_commands_still_run(projects: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=projects, check=True)
    subprocess.run(["git", "add", "."], cwd=projects, check=True)
    code, out = confined(projects, "python3 src/app.py && git status --short && ls src "
                                   "&& grep -rn app src && cat /etc/hostname > /dev/null "
                                   "&& echo done")
    assert code == 0 and "app runs" in out and "A  src/app.py" in out and out.endswith(
        "done\n"), out


def test_a_venv_inside_or_outside_the_workspace_runs(projects: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    inside = projects / ".venv"
    outside = projects.parent.parent / "venvs" / "app"
    for venv in (inside, outside):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    code, out = confined(projects, ".venv/bin/python -c 'import sys; print(sys.prefix)'")
    assert code == 0 and str(inside) in out, out
    # An activated venv elsewhere (its bin/ on PATH) is a toolchain: readable.
    monkeypatch.setenv("PATH", f"{outside}/bin{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VIRTUAL_ENV", str(outside))
    code, out = confined(projects, "python -c 'import sys; print(sys.prefix)' "
                                   "&& python src/app.py")
    assert code == 0 and str(outside) in out and "app runs" in out, out


async def test_the_config_can_open_a_sibling_to_reading(
        projects: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`sandbox_read = ["~/other"]`: the user opens a sibling project to reading; its
    secret files stay covered."""
    monkeypatch.setenv("HOME", str(projects.parent))
    bus = EventBus()
    box = Toolbox(projects, Settings(sandbox_read=["~/other"]), ApprovalQueue(bus), bus,
                  mode="auto")
    approving(box.queue, bus)  # a denied read offers to run unconfined: declined
    box.sandbox.cover = ()  # the sibling lives under the test's /tmp: keep it visible
    try:
        read = await box.run(tool_call("bash", command="cat ../other/billing.py"))
        assert KEY in read.content  # asked for by the user
        secret = await box.run(tool_call("bash", command="cat ../other/.env"))
        assert KEY not in secret.content
    finally:
        box.close()


def worktree(tmp_path: Path) -> tuple[Path, Path]:
    """(a repository with one commit "first", a linked worktree of it)."""
    main = tmp_path / "main"
    main.mkdir()
    for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                                  "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *args], cwd=main, check=True)
    tree = tmp_path / "tree"
    subprocess.run(["git", "worktree", "add", "-q", str(tree)], cwd=main, check=True)
    return main, tree


def test_git_works_in_a_worktree_and_a_planted_git_file_opens_nothing(
        projects: Path, tmp_path: Path) -> None:
    main, tree = worktree(tmp_path)
    code, out = confined(tree, "git log --oneline")
    assert code == 0 and "first" in out, out
    (tree / "pkg").mkdir()  # a folder of the worktree as the workspace
    code, out = confined(tree / "pkg", "git log --oneline")
    assert code == 0 and "first" in out, out
    # A cloned repository's `.git` file naming another repository's git directory.
    (main / ".git" / "secret-note").write_text(f"{KEY}\n")
    (projects / ".git").write_text(f"gitdir: {main / '.git'}\n")
    code, out = confined(projects, "cat $(sed 's/gitdir: //' .git)/secret-note")
    assert KEY not in out


def test_a_project_on_path_opens_only_its_bin(projects: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`~/src/other/bin` on PATH is a project with scripts, not a toolchain: its `bin/`
    runs, the rest of it (billing.py and its key) stays unread. A venv's `bin/` on PATH
    opens the venv (its lib/ is needed)."""
    other = projects.parent / "other"
    (other / "bin").mkdir()
    (other / "bin" / "hello").write_text("#!/bin/sh\necho hello from other\n")
    (other / "bin" / "hello").chmod(0o755)
    monkeypatch.setenv("PATH", f"{other}/bin{os.pathsep}{os.environ['PATH']}")
    code, out = confined(projects, "hello; cat ../other/billing.py")
    assert "hello from other" in out and KEY not in out, out


def test_a_bin_on_path_that_leads_to_the_home_opens_nothing(
        projects: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = projects.parent
    (home / "bin").symlink_to(home)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home}/bin{os.pathsep}{os.environ['PATH']}")
    code, out = confined(projects, "cat ../other/billing.py")
    assert KEY not in out, out


def test_the_home_cache_opens_only_the_tools_caches(projects: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`~/.cache` holds a browser's cache, an editor's index of every project the user opened
    and copies of other projects' source: only the tools' caches are read (a poetry venv
    there runs), and gradle's init scripts, where repository passwords are kept, are not."""
    home = projects.parent
    monkeypatch.setenv("HOME", str(home))
    leaks = {".cache/mozilla/firefox/x.default/cache2/entries/A1": KEY,
             ".cache/JetBrains/IdeaIC/index/other.dat": KEY,
             ".gradle/init.d/repositories.gradle": f"password = '{KEY}'",
             ".cache/pip/selfcheck.json": "pip cache read"}
    for rel, text in leaks.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text + "\n")
    venv = home / ".cache" / "pypoetry" / "virtualenvs" / "app-py3"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    for rel in leaks:
        code, out = confined(projects, f"cat ~/{rel}")
        assert KEY not in out, rel
    code, out = confined(projects, f"cat ~/.cache/pip/selfcheck.json && {venv}/bin/python "
                                   "src/app.py && ls ~/.cache/mozilla")
    assert "pip cache read" in out and "app runs" in out and "x.default" not in out, out


def test_git_works_in_a_package_of_a_monorepo(tmp_path: Path) -> None:
    """A workspace that is a folder of a repository (`mono/packages/app`): git finds the
    repository's git directory above it and the top's settings files are read, while a
    sibling package's files stay unread."""
    top = tmp_path / "mono"
    app, sibling = top / "packages" / "app", top / "packages" / "billing"
    app.mkdir(parents=True)
    sibling.mkdir()
    (app / "app.py").write_text("print('app runs')\n")
    (sibling / "settings.py").write_text(f"KEY = '{KEY}'\n")
    (top / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t",
                                               "commit", "-q", "-m", "first"]):
        subprocess.run(["git", *args], cwd=top, check=True)
    (app / "app.py").write_text("print('changed')\n")
    code, out = confined(app, "git log --oneline && git status --short . && "
                              "cat ../../pyproject.toml")
    assert code == 0 and "first" in out and "M app.py" in out and "line-length" in out, out
    code, out = confined(app, "cat ../billing/settings.py; git show HEAD --stat | head -3")
    assert KEY not in out, out


def test_a_home_kept_in_git_opens_nothing(projects: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dotfiles kept in a repository at the home (`~/.git`) are no project the workspace
    belongs to: neither that git directory nor the home's files are read."""
    home = projects.parent
    monkeypatch.setenv("HOME", str(home))
    (home / "package.json").write_text(f'{{"token": "{KEY}"}}\n')
    subprocess.run(["git", "init", "-q"], cwd=home, check=True)
    (home / ".git" / "note").write_text(f"{KEY}\n")
    code, out = confined(projects, "cat ../package.json ../.git/note")
    assert KEY not in out, out
