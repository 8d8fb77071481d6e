"""Remembered rules: matching, the session scope, and the workspace config file."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

import pytest

from swetui.agent.events import RulesChanged
from swetui.agent.rules import RuleBook, WorkspaceRules, command_matches, first_words
from swetui.agent.sensitive import path_matches
from swetui.config import ApprovalRule, ConfigError, load_settings
from tests.agent.conftest import Recorder, tool_call, wait_pending
from tests.trusted import trust_workspace


@pytest.mark.parametrize(("pattern", "command", "expected"), [
    ("git status", "git status -s", True), ("git status", "git statusx", False),
    ("git status", "git status", True), ("git", "git log", True), ("pytest", "pytest-x", False),
    ("npm run test", "npm run build", False), ("ls", "  ls   -la", True),
])
def test_command_prefix_on_word_boundaries(pattern: str, command: str, expected: bool):
    assert command_matches(pattern, command) is expected


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("src/**/*.py", "src/a/b/c.py", True), ("src/**/*.py", "src/c.py", True),
    ("src/*.py", "src/a/b.py", False), ("*.md", "docs/guide/x.md", True),
    ("docs", "docs/a.txt", True), ("src/app.py", "src/app.py", True),
    ("src/app.py", "src/app.pyc", False), ("tests/**", "tests/x/y.py", True),
])
def test_path_globs(pattern: str, path: str, expected: bool):
    assert path_matches(pattern, path) is expected


def test_first_words():
    assert first_words("git status -s") == "git status"
    assert first_words("ls") == "ls"
    assert first_words("pytest -q tests && echo ok") == "pytest -q"


def test_workspace_rules_written_read_back_other_keys_kept(tmp_path: Path):
    config = tmp_path / ".swetui" / "config.toml"
    config.parent.mkdir()
    config.write_text('mode = "auto-edit"\ntheme = "nord"\n\n[[approval_rules]]\n'
                      'action = "deny"\nkind = "command"\npattern = "git push"\n')
    trust_workspace(tmp_path)
    rules = WorkspaceRules(tmp_path)
    rules.add(ApprovalRule(action="allow", kind="command", pattern="pytest"))
    rules.add(ApprovalRule(action="allow", kind="command", pattern="pytest"))  # no duplicate
    data = tomllib.loads(config.read_text())
    assert data["mode"] == "auto-edit" and data["theme"] == "nord"
    assert [r["pattern"] for r in data["approval_rules"]] == ["git push", "pytest"]
    settings = load_settings(tmp_path)
    assert [r.pattern for r in settings.approval_rules] == ["git push", "pytest"]
    assert [r.pattern for r in WorkspaceRules(tmp_path).list()] == ["git push", "pytest"]
    removed = rules.remove(0)
    assert removed.pattern == "git push"
    rules.remove(ApprovalRule(action="allow", kind="command", pattern="pytest"))
    data = tomllib.loads(config.read_text())
    assert "approval_rules" not in data and data["theme"] == "nord"
    with pytest.raises(IndexError):
        rules.remove(3)


def test_hand_edits_to_the_config_are_picked_up(tmp_path: Path):
    rules = WorkspaceRules(tmp_path)
    assert rules.list() == []
    config = tmp_path / ".swetui" / "config.toml"
    config.parent.mkdir()
    config.write_text('[[approval_rules]]\naction = "allow"\nkind = "path"\npattern = "docs/**"\n')
    assert rules.list() == []  # an allow rule nobody trusted yet
    assert rules.stored()[0].pattern == "docs/**"
    trust_workspace(tmp_path)
    assert rules.list()[0].pattern == "docs/**"


def test_a_broken_config_is_never_overwritten(tmp_path: Path):
    config = tmp_path / ".swetui" / "config.toml"
    config.parent.mkdir()
    config.write_text("mode = [unclosed\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        WorkspaceRules(tmp_path).add(ApprovalRule(action="allow", kind="command", pattern="ls"))
    assert config.read_text() == "mode = [unclosed\n"


async def test_remember_for_session_skips_the_next_ask(toolbox, recorder: Recorder):
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="echo one")))
    [action] = await wait_pending(toolbox.queue)
    assert action.rule_hint == "echo one"
    toolbox.queue.approve(action.id, remember="session", rule_pattern="echo")
    await task
    assert toolbox.rules.session.list() == [
        ApprovalRule(action="allow", kind="command", pattern="echo")]
    assert recorder.of(RulesChanged)[0].scope == "session"
    again = await toolbox.run(tool_call("bash", command="echo two"))
    assert "two" in again.content and toolbox.queue.pending() == []
    other = asyncio.create_task(toolbox.run(tool_call("bash", command="echo x && date")))
    await wait_pending(toolbox.queue)  # the rule does not cover `date`
    toolbox.queue.deny_all()
    await other


async def test_remember_for_workspace_persists_and_survives_a_new_toolbox(make_toolbox,
                                                                           ws_root: Path):
    toolbox = make_toolbox("ask")
    task = asyncio.create_task(toolbox.run(tool_call("edit_file", path="src/app.py",
                                                     old="return 0", new="return 1")))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.approve(action.id, remember="workspace")
    await task
    data = tomllib.loads((ws_root / ".swetui/config.toml").read_text())
    assert data["approval_rules"] == [{"action": "allow", "kind": "path",
                                       "pattern": "src/app.py"}]
    fresh = make_toolbox("ask")
    result = await fresh.run(tool_call("edit_file", path="src/app.py", old="return 1",
                                       new="return 2"))
    assert not result.is_error and fresh.queue.pending() == []


async def test_remembered_deny_denies_without_asking(make_toolbox):
    toolbox = make_toolbox("auto")
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="git push --force")))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.deny(action.id, "never push", remember="session")
    await task
    assert toolbox.rules.session.list()[0].action == "deny"
    result = await toolbox.run(tool_call("bash", command="git push origin main"))
    assert result.is_error and "denied" in result.summary
    assert toolbox.queue.pending() == []


async def test_remembered_allow_does_not_skip_a_protected_path(make_toolbox):
    toolbox = make_toolbox("ask")
    toolbox.rules.session.add(ApprovalRule(action="allow", kind="path", pattern="**"))
    task = asyncio.create_task(toolbox.run(tool_call("write_file", path=".env",
                                                     content="A=1\n")))
    [action] = await wait_pending(toolbox.queue)
    assert action.protected and ".env" in action.protected
    toolbox.queue.deny(action.id)
    await task


def test_rulebook_scopes(tmp_path: Path):
    book = RuleBook(tmp_path)
    assert book.scope("session") is book.session and book.scope("workspace") is book.workspace
