"""Workspace approval rules and trust: an untrusted `.swetui/config.toml` allows nothing,
its deny rules still deny, and the user's own remembered rules keep (but never grant) trust."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from swetui.agent.rules import WorkspaceRules
from swetui.agent.toolbox import Toolbox
from swetui.config import ApprovalRule, ConfigError, load_settings
from swetui.engine.events import EngineNotice
from swetui.trust import CONFIG, TrustStore, trust_state
from tests.agent.conftest import Recorder, tool_call, wait_pending
from tests.trusted import trust_workspace

SHIPPED = ('mode = "auto"\n\n[[approval_rules]]\naction = "allow"\nkind = "command"\n'
           'pattern = "rm"\n\n[[approval_rules]]\naction = "deny"\nkind = "command"\n'
           'pattern = "echo"\n')


def ship(root: Path, text: str = SHIPPED) -> Path:
    config = root / CONFIG
    config.parent.mkdir(exist_ok=True)
    config.write_text(text)
    return config


async def test_untrusted_allow_rule_asks_and_deny_rule_denies(toolbox: Toolbox, ws_root: Path):
    ship(ws_root)
    (ws_root / "victim.txt").write_text("keep\n")
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="rm victim.txt")))
    [action] = await wait_pending(toolbox.queue)  # asks: the shipped allow rule is ignored
    assert action.command == "rm victim.txt"
    toolbox.queue.deny_all()
    await task
    assert (ws_root / "victim.txt").exists()
    denied = await toolbox.run(tool_call("bash", command="echo hi"))
    assert denied.is_error and "denied by the rule deny command 'echo'" in denied.content

    trust_workspace(ws_root)
    ran = await toolbox.run(tool_call("bash", command="rm victim.txt"))
    assert not ran.is_error and not (ws_root / "victim.txt").exists()


async def test_remembered_rule_keeps_a_trusted_file_trusted(toolbox: Toolbox, ws_root: Path):
    ship(ws_root, 'context_limit = 64000\n')
    trust_workspace(ws_root)
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="ls src")))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.approve(action.id, remember="workspace", rule_pattern="ls")
    await task
    assert trust_state(ws_root).untrusted == ()
    assert "ls" in (ws_root / CONFIG).read_text()
    assert load_settings(ws_root).context_limit == 64_000
    rules = WorkspaceRules(ws_root)
    assert ApprovalRule(action="allow", kind="command", pattern="ls") in rules.list()
    rules.remove(0)  # forgetting one (/rules remove) is the user's own change too
    assert trust_state(ws_root).untrusted == ()


async def test_first_remembered_rule_creates_a_trusted_file(toolbox: Toolbox, ws_root: Path):
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="ls src")))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.approve(action.id, remember="workspace", rule_pattern="ls")
    await task
    state = trust_state(ws_root)
    assert state.file(CONFIG) is not None and state.untrusted == ()
    again = await toolbox.run(tool_call("bash", command="ls"))
    assert not again.is_error and toolbox.queue.pending() == []


async def test_remembering_into_an_untrusted_file_never_launders_it(
        toolbox: Toolbox, ws_root: Path, recorder: Recorder):
    ship(ws_root)
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="ls src")))
    [action] = await wait_pending(toolbox.queue)
    toolbox.queue.approve(action.id, remember="workspace", rule_pattern="ls")
    await task
    assert trust_state(ws_root).file(CONFIG).trusted is False  # type: ignore[union-attr]
    assert load_settings(ws_root).mode == "ask"
    workspace = toolbox.rules.workspace
    assert [rule.pattern for rule in workspace.stored()] == ["rm", "echo", "ls"]
    assert [rule.pattern for rule in workspace.list()] == ["echo"]  # deny rules only
    # The user's own choice holds for this session, and they are told why.
    again = await toolbox.run(tool_call("bash", command="ls"))
    assert not again.is_error and toolbox.queue.pending() == []
    notices = [event.message for event in recorder.of(EngineNotice)]
    assert any("not trusted" in message and "/trust" in message for message in notices)
    task = asyncio.create_task(toolbox.run(tool_call("bash", command="rm README.md")))
    await wait_pending(toolbox.queue)  # the repository's rule still does not allow
    toolbox.queue.deny_all()
    await task


def test_an_edit_outside_swetui_makes_the_file_untrusted(ws_root: Path):
    config = ship(ws_root)
    trust_workspace(ws_root)
    rules = WorkspaceRules(ws_root)
    assert {rule.pattern for rule in rules.list()} == {"rm", "echo"}
    config.write_text(SHIPPED.replace('"rm"', '"curl"'))
    assert [rule.pattern for rule in rules.list()] == ["echo"]
    assert load_settings(ws_root).mode == "ask"


def test_a_link_out_of_the_workspace_holds_no_rules_and_is_not_written(
        ws_root: Path, tmp_path: Path):
    outside = tmp_path / "outside.toml"
    outside.write_text(SHIPPED)
    (ws_root / ".swetui").mkdir()
    (ws_root / CONFIG).symlink_to(outside)
    trust_workspace(ws_root)  # nothing it could trust: the file is not used at all
    rules = WorkspaceRules(ws_root)
    assert rules.list() == [] and load_settings(ws_root).mode == "ask"
    with pytest.raises(ConfigError, match="outside the workspace"):
        rules.add(ApprovalRule(action="allow", kind="command", pattern="ls"))
    assert outside.read_text() == SHIPPED


def test_concurrent_trust_of_many_workspaces_loses_none(tmp_path: Path):
    roots = []
    for number in range(8):
        root = tmp_path / f"repo{number}"
        root.mkdir()
        ship(root, f"context_limit = {10_000 + number}\n")
        roots.append(root)
    store = TrustStore()
    threads = [threading.Thread(target=lambda r=root: store.trust(store.state(r)))
               for root in roots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(store.state(root).untrusted == () for root in roots)
    assert [load_settings(root).context_limit for root in roots] == \
        [10_000 + number for number in range(8)]
