""".swetui/ stays out of the repository and private: its own .gitignore (`*`), files 0600,
folders 0700, whatever the umask; older .swetui folders are fixed on the next open."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from swetui.files import atomic_write

UMASK = 0o022


def swetui(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["SWETUI_MODEL"] = "offline"
    return subprocess.run([sys.executable, "-m", "swetui", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: os.umask(UMASK))


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull,
                               "GIT_CONFIG_NOSYSTEM": "1"})
    return done.stdout


def loose_modes(directory: Path) -> list[str]:
    """Everything under `directory` (itself included) whose mode is not 0700/0600."""
    wrong = []
    for path in [directory, *directory.rglob("*")]:
        info = path.lstat()
        want = 0o700 if stat.S_ISDIR(info.st_mode) else 0o600
        if stat.S_IMODE(info.st_mode) != want:
            wrong.append(f"{path.relative_to(directory.parent)} {oct(stat.S_IMODE(info.st_mode))}")
    return wrong


@pytest.fixture
def repo(workspace: Path) -> Path:
    git("init", "-q", cwd=workspace)
    (workspace / "big.txt").write_text("".join(f"line {n} of a long file\n" for n in range(400)))
    (workspace / "tool.sh").write_text("echo hello\n")
    (workspace / "tool.sh").chmod(0o755)
    return workspace


def test_a_real_run_leaves_nothing_for_git_and_nothing_readable_by_others(repo: Path):
    for prompt in ("read big.txt", 'replace "hello" with "howdy" in tool.sh'):
        done = swetui("run", prompt, "--yes", cwd=repo)
        assert done.returncode == 0, done.stderr
    swetui_dir = repo / ".swetui"
    made = {path.relative_to(swetui_dir).parts[0] for path in swetui_dir.rglob("*")}
    assert {"sessions", "logs", "memory", "blobs", "checkpoints", ".gitignore"} <= made
    assert (swetui_dir / ".gitignore").read_text() == "*\n"
    assert ".swetui" not in git("status", "--porcelain", "--untracked-files=all", cwd=repo)
    git("add", "-A", cwd=repo)
    assert not [name for name in git("diff", "--cached", "--name-only", cwd=repo).split()
                if name.startswith(".swetui")]
    assert loose_modes(swetui_dir) == []
    # The user's own file keeps its mode through swetui's atomic edit.
    assert (repo / "tool.sh").read_text() == "echo howdy\n"
    assert stat.S_IMODE((repo / "tool.sh").stat().st_mode) == 0o755


def test_an_older_swetui_folder_is_fixed_on_the_next_open(repo: Path):
    old = repo / ".swetui"
    for folder in ("sessions", "logs", "memory", "blobs/ab"):
        (old / folder).mkdir(parents=True)
    (old / "sessions" / "20240101-000000-abcd.jsonl").write_text("")
    (old / "memory" / "session_notes.md").write_text("# notes\n")
    (old / "blobs" / "ab" / "cdef").write_text("blob")
    for path in [old, *old.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert ".swetui/" in git("status", "--porcelain", cwd=repo)
    done = swetui("context", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert (old / ".gitignore").read_text() == "*\n"
    assert ".swetui" not in git("status", "--porcelain", "--untracked-files=all", cwd=repo)
    assert loose_modes(old) == []


def test_remembered_rules_create_a_private_config_and_the_ignore_file(tmp_path: Path):
    from swetui.agent.rules import WorkspaceRules
    from swetui.config import ApprovalRule

    root = tmp_path / "ws"
    root.mkdir()
    previous = os.umask(UMASK)
    try:
        WorkspaceRules(root).add(ApprovalRule(action="allow", kind="command", pattern="ls"))
    finally:
        os.umask(previous)
    assert (root / ".swetui" / ".gitignore").read_text() == "*\n"
    assert loose_modes(root / ".swetui") == []


def test_atomic_write_keeps_a_user_files_mode_and_makes_swetui_files_private(tmp_path: Path):
    script = tmp_path / "run.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    private = tmp_path / ".swetui" / "config.toml"
    private.parent.mkdir()
    previous = os.umask(UMASK)
    try:
        atomic_write(script, b"new\n", script.stat().st_mode)
        atomic_write(tmp_path / "fresh.txt", b"x")
        atomic_write(private, b"mode = 'ask'\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert stat.S_IMODE((tmp_path / "fresh.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


def test_nothing_is_written_through_a_link_the_workspace_ships_in_swetui(
        tmp_path: Path) -> None:
    """A cloned workspace can ship `.swetui/sessions -> /anywhere` (and `logs`, `blobs`,
    `memory`): swetui wrote the whole session log and its log there, outside the
    workspace, wherever the link pointed. Now it writes nothing through such a link and
    says the session is not saved."""
    root = tmp_path / "cloned"
    (root / ".swetui").mkdir(parents=True)
    (root / "app.py").write_text("print('hi')\n")
    elsewhere = tmp_path / "elsewhere"
    for name in ("sessions", "logs", "blobs", "memory"):
        (elsewhere / name).mkdir(parents=True)
        (root / ".swetui" / name).symlink_to(elsewhere / name)
    done = swetui("run", "read app.py", cwd=root)
    assert done.returncode == 0, done.stderr
    assert [path for path in elsewhere.rglob("*") if path.is_file()] == []
    assert "is a link (the workspace came with it)" in done.stdout + done.stderr
