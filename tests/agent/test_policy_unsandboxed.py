"""Without a kernel sandbox (another OS, or `sandbox = "off"`), auto mode and remembered
allow rules let through only commands the reader can prove harmless: an allow-list, because a
block-list of dangerous words is walked around by the first variation."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.agent.policy import Policy
from swetui.agent.tools.harmless import is_harmless
from swetui.config import ApprovalRule
from tests.agent.test_policy import bash_action

WALKAROUNDS = [
    "R=rm; $R -r -f /outside/dir", "$(echo rm) -rf /x", "`echo rm` -rf /x",
    "echo cm0gLXJmIC8K | base64 -d | sh", "python3 -c \"import shutil; shutil.rmtree('/x')\"",
    "perl -e 'system(\"rm -rf /x\")'", "awk 'BEGIN { system(\"rm -rf /x\") }'",
    "mv x ../y", "truncate -s 0 ../f", "shred -u f", "git config --global user.name evil",
    "git config core.fsmonitor 'touch /tmp/p'", "echo hi > ../x", "ls > listing.txt",
    "ls; rm x", "ls && rm -f x", "cat a | tee b", "find . -delete", "find . -exec rm {} +",
    "git -c core.pager='sh -c id' log", "git log --output=x", "sort -o out in",
    "uniq in out", "./ls", "/tmp/evil/cat x", "env rm x", "xargs rm < list", "ls & rm x",
    "ls\nrm x", "ls \\\n; rm x", "pytest -q", "make", "npm test", "node -e 'x'",
    "rg --pre ./evil pattern", "cat .env", "cat ~/.ssh/id_rsa", "sed -i s/a/b/ f",
    "date -s 2020-01-01", "echo ${HOME}", "cat <(ls)", "exec rm x",
    # found by the attack review: each ran code, wrote, or read a secret
    "echo touch X | bash -v", "sh -v < script.sh", "python3 -v < script.py",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=x git status",
    "GIT_EXTERNAL_DIFF=x git diff", "git grep -Otouch hello", "git grep --open-files=rm x",
    "sort -S 1K --compress-program=bash big.txt", "sort --compress-prog=sh f",
    "sort -uo out.txt lines.txt", "sort -T /x f", "uniq - a.txt", "echo hi > 1",
    "cat a.txt > 2", "date -us 2020-01-01", "date --se=2020", "cat .en*",
    "tail -n +1 .e[n]v", "cat ~/.ss*/id_*", "git show HEAD:.env", "git cat-file -p HEAD:.env",
    "grep -r secret .", "rg secret",
]
HARMLESS = [
    "ls", "ls -la src", "git status", "git diff HEAD", "git log --oneline -5",
    "cat README.md", "grep -rn TODO src | head -20", "wc -l src/*.py", "pwd",
    "find . -name '*.py'", "git show HEAD:README.md", "python3 --version", "ls 2>&1 | sort",
    "cat /etc/os-release", "echo hello", "ls > /dev/null", "sort -nr sizes.txt",
    "git show HEAD:README.md", "date +%Y", "grep -rn TODO src",
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace with a secret in it (globs and recursive searches would reach it)."""
    (tmp_path / ".env").write_text("TOKEN=x\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("# TODO\n")
    return tmp_path


@pytest.mark.parametrize("command", WALKAROUNDS)
def test_walkarounds_are_not_harmless(command: str, root: Path) -> None:
    assert not is_harmless(command, str(root))


@pytest.mark.parametrize("command", HARMLESS)
def test_read_only_commands_are_harmless(command: str, root: Path) -> None:
    assert is_harmless(command, str(root))


@pytest.mark.parametrize("command", WALKAROUNDS)
def test_auto_mode_without_sandbox_asks(command: str, root: Path) -> None:
    decision = Policy("auto").decide(bash_action(command, root), sandboxed=False)
    assert decision.verdict == "ask"


@pytest.mark.parametrize("command", HARMLESS)
def test_auto_mode_without_sandbox_still_runs_plain_reads(command: str, root: Path) -> None:
    decision = Policy("auto").decide(bash_action(command, root), sandboxed=False)
    assert decision.verdict == "allow"


def test_allow_rule_without_sandbox_only_covers_harmless_commands(tmp_path: Path) -> None:
    rules = [ApprovalRule(action="allow", kind="command", pattern="python3")]
    action = bash_action("python3 -c 'import os; os.remove(\"x\")'", tmp_path)
    assert Policy("ask").decide(action, rules, sandboxed=True).verdict == "allow"
    assert Policy("ask").decide(action, rules, sandboxed=False).verdict == "ask"


def test_with_the_sandbox_auto_mode_runs_them_confined(tmp_path: Path) -> None:
    decision = Policy("auto").decide(bash_action("R=rm; $R -rf /x", tmp_path), sandboxed=True)
    assert decision.verdict == "allow"
