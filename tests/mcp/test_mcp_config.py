"""Where MCP servers come from: swetui's config and a trusted `.mcp.json`, with `${VAR}`
expanded, bad entries reported by name, and server tokens registered for redaction."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.events import Decision, PendingAction
from swetui.agent.mcp.calls import mcp_action
from swetui.agent.mcp.servers_config import _Missing, configured_servers, expand
from swetui.agent.policy import Policy
from swetui.agent.rules import rule_for
from swetui.config import ApprovalRule, Settings, load_settings
from swetui.messages import ToolCall
from swetui.secrets import STORE
from swetui.trust import TrustStore
from tests.mcp.conftest import mcp_json, stdio_entry, write_user_config
from tests.trusted import trust_workspace


def servers_of(root: Path, environ: dict[str, str] | None = None):
    settings = load_settings(root)
    return configured_servers(settings, TrustStore().state(root), environ or {})


def test_variables_expand_and_a_missing_one_is_named() -> None:
    env = {"HOST": "example.org", "EMPTY": ""}
    assert expand("https://${HOST}/mcp", env, set()) == "https://example.org/mcp"
    assert expand("${EMPTY:-fallback}-${NONE:-x}", env, set()) == "fallback-x"
    try:
        expand("Bearer ${GITHUB_TOKEN}", env, set())
    except _Missing as missing:
        assert missing.args[0] == "GITHUB_TOKEN"
    else:
        raise AssertionError("a missing variable must be reported")


@given(st.text().filter(lambda text: "${" not in text))
def test_text_without_variables_is_unchanged(text: str) -> None:
    assert expand(text, {"A": "b"}, set()) == text


@given(st.from_regex(r"[A-Z_][A-Z0-9_]{0,12}", fullmatch=True), st.text(max_size=40))
def test_a_set_variable_expands_to_its_value(name: str, value: str) -> None:
    assert expand(f"<${{{name}}}>", {name: value}, set()) == f"<{value}>"


def test_a_repository_mcp_json_starts_nothing_until_trusted(workspace: Path) -> None:
    mcp_json(workspace, {"repo": stdio_entry()})
    found = servers_of(workspace)
    assert found.servers == [] and found.untrusted
    trust_workspace(workspace)
    found = servers_of(workspace)
    assert [(s.name, s.origin) for s in found.servers] == [("repo", "workspace")]
    # A changed file is untrusted again.
    mcp_json(workspace, {"repo": stdio_entry(), "other": stdio_entry()})
    assert servers_of(workspace).servers == []


def test_user_config_wins_and_bad_entries_are_named(workspace: Path,
                                                   isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {
        "same": {"url": "http://127.0.0.1:9/mcp"},
        "bad__name": stdio_entry(),
        "needs": {"command": "x", "env": {"API_TOKEN": "${MISSING_TOKEN}"}},
        "nothing": {}, "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}})
    mcp_json(workspace, {"same": stdio_entry(), "extra": {"url": "http://h/mcp",
                                                            "autoApprove": ["x"]}})
    trust_workspace(workspace)
    found = servers_of(workspace)
    by_name = {server.name: server for server in found.servers}
    assert by_name["same"].transport == "http" and by_name["same"].origin == "user"
    assert by_name["extra"].origin == "workspace"
    messages = " | ".join(problem.message for problem in found.problems)
    assert "'bad__name'" in messages
    assert "${MISSING_TOKEN} is not set" in messages
    assert "nothing: a stdio server needs a `command`" in messages
    # The old SSE transport is refused with what to do instead.
    assert 'legacy: uses the old SSE transport (type "sse")' in messages
    assert 'set type "http"' in messages


def test_a_malformed_mcp_json_is_reported(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text("{not json")
    trust_workspace(workspace)
    found = servers_of(workspace)
    assert found.servers == [] and "not valid JSON" in found.problems[0].message


def test_server_tokens_and_headers_are_redacted(workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {
        "gh": {"url": "https://api.example/mcp",
               "headers": {"Authorization": "Bearer ${GH_PAT}"}},
        "local": {"command": "srv", "env": {"SERVICE_KEY": "plain-value-123456",
                                            "SETTING": "${SOME_SETTING}"}}}}})
    found = servers_of(workspace, {"GH_PAT": "ghp_PLANTEDplanted1234567890",
                                   "SOME_SETTING": "from-the-env-9876"})
    assert len(found.servers) == 2
    text = "ghp_PLANTEDplanted1234567890 plain-value-123456 from-the-env-9876"
    shown = STORE.redact(text)
    assert "PLANTED" not in shown and "plain-value" not in shown and "from-the-env" not in shown
    assert "[redacted: mcp gh header Authorization]" in shown


def _action(name: str) -> PendingAction:
    return mcp_action(ToolCall(id="c", name=name, arguments={"q": "x"}), Path("/w"))


def test_rules_name_a_tool_or_a_whole_server() -> None:
    allow = ApprovalRule(action="allow", kind="tool", pattern="mcp__github__*")
    deny = ApprovalRule(action="deny", kind="tool", pattern="mcp__github__delete_repo")
    policy = Policy("ask")
    assert policy.decide(_action("mcp__github__list_issues"), [allow]).verdict == "allow"
    assert policy.decide(_action("mcp__github__delete_repo"), [allow, deny]).verdict == "deny"
    assert policy.decide(_action("mcp__other__list"), [allow]).verdict == "ask"
    # auto-edit applies edits, not MCP calls; auto runs them.
    assert Policy("auto-edit").decide(_action("mcp__other__list")).verdict == "ask"
    assert Policy("auto").decide(_action("mcp__other__list")).verdict == "allow"
    remembered = rule_for(_action("mcp__github__list_issues"),
                          Decision(approved=True, remember="workspace"))
    assert remembered == ApprovalRule(action="allow", kind="tool",
                                      pattern="mcp__github__list_issues")


def test_the_mcp_section_is_validated(workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"defer_share": 2}})
    try:
        load_settings(workspace)
    except Exception as exc:  # ConfigError, naming the field
        assert "mcp.defer_share" in str(exc)
    else:
        raise AssertionError("defer_share 2 must be refused")
    assert Settings().mcp.defer_share == 0.10
