"""MCP servers in a real session: the tools become items with their schemas' token costs,
calls go through the approval queue, the user drops tools and servers, big tool sets are
deferred and loaded on demand. The servers are real (the SDK's FastMCP, over stdio and
streamable HTTP on loopback); only the model is scripted."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from swetui.agent.mcp.names import TOOL_SEARCH
from swetui.engine.assembly import DEFERRED_TITLE
from swetui.engine.items import ItemState
from swetui.engine.tokens import MESSAGE_OVERHEAD
from tests.agent.scripted import ScriptedProvider, answer, calls
from tests.mcp.conftest import (
    HttpServer,
    open_session,
    raw_entry,
    stdio_entry,
    write_user_config,
)
from tests.waiting import eventually


def tool_names(provider: ScriptedProvider, index: int = -1) -> list[str]:
    return [tool.name for tool in provider.requests[index].tools]


async def test_tools_are_items_with_their_costs_and_calls_wait_for_approval(
        workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"demo": stdio_entry()}}})
    provider = ScriptedProvider(calls(("c1", "mcp__demo__echo", {"text": "hi"})),
                                answer("done"),
                                answer("again"))
    session = open_session(workspace, provider)
    try:
        session.start()
        session.start_servers()  # what the UI does once its first frame is on screen
        await session.mcp.wait_started()
        [status] = session.mcp_servers()
        assert status.state == "ready", status.error
        item = session.engine.get("tool:mcp__demo__echo")
        assert item.layer.value == "system" and item.state is ItemState.INCLUDED
        # The item's cost is its schema's, exactly as it is sent.
        sent = json.loads(item.content)
        assert sent["name"] == "mcp__demo__echo" and "text" in json.dumps(sent["parameters"])
        assert item.tokens == session.engine.counter.count(item.content) + MESSAGE_OVERHEAD
        assert {t.name: t.tokens for t in status.tools}["mcp__demo__echo"] == item.tokens

        turn = asyncio.create_task(session.send("say hi through the server"))
        await eventually(lambda: session.queue.pending(), "the call waits for approval")
        [action] = session.queue.pending()
        assert action.kind == "mcp" and '"text": "hi"' in (action.command or "")
        session.queue.approve(action.id)
        finished = await turn
        assert finished.error is None
        assert "mcp__demo__echo" in tool_names(provider, 0)
        result = [i for i in session.engine if i.kind.value == "tool_call"][-1]
        assert "echo: hi" in result.content

        # Dropping the tool takes it out of the very next request.
        session.engine.drop("tool:mcp__demo__echo")
        await session.send("and now?")
        assert "mcp__demo__echo" not in tool_names(provider)
        assert "mcp__demo__add" in tool_names(provider)
    finally:
        await session.aclose()

    # The choice is remembered for the workspace: the next session starts with it dropped.
    provider = ScriptedProvider(answer("fresh"))
    session = open_session(workspace, provider)
    try:
        session.start()
        await session.send("hello")
        assert "mcp__demo__echo" not in tool_names(provider)
        assert session.engine.get("tool:mcp__demo__echo").state is ItemState.DROPPED
        # Dropping the whole server says what it saves; restoring brings it all back.
        sent = session.mcp_servers()[0].sent_tokens
        assert sent > 100
        message = session.set_mcp_server_dropped("demo", True)
        assert f"the next request is {sent:,} tokens smaller" in message
        assert session.engine.get("tool:mcp__demo__add").state is ItemState.DROPPED
        message = session.set_mcp_server_dropped("demo", False)
        assert session.engine.get("tool:mcp__demo__echo").state is ItemState.INCLUDED
        restored = session.mcp_servers()[0].sent_tokens
        assert restored > sent and f"{restored:,} tokens larger" in message
    finally:
        await session.aclose()


async def test_many_tools_are_deferred_and_the_model_loads_what_it_needs(
        workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {
        "context_limit": 20_000,
        "mcp": {"defer_share": 0.10, "servers": {"big": stdio_entry("big", "40")}}})
    provider = ScriptedProvider(
        calls(("c1", TOOL_SEARCH, {"query": "add integers"})),
        calls(("c2", "mcp__big__add", {"a": 2, "b": 3})),
        answer("5"))
    session = open_session(workspace, provider, mode="auto")
    try:
        session.start()
        await session.send("add 2 and 3")
        first, second, third = provider.requests
        # Deferred: no MCP schema is sent, only names and one line each, and tool_search.
        assert TOOL_SEARCH in [t.name for t in first.tools]
        assert not [t.name for t in first.tools if t.name.startswith("mcp__")]
        assert DEFERRED_TITLE in first.system and "- mcp__big__search_7:" in first.system
        # tool_search loaded `add`: it is sent in full from the next step on, and stays.
        assert "mcp__big__add" in [t.name for t in second.tools]
        assert "mcp__big__add" in [t.name for t in third.tools]
        assert "- mcp__big__add" not in second.system
        result = [i for i in session.engine if i.kind.value == "tool_call"][-1]
        assert result.content.strip() == "5"
        statuses = {t.name: t for t in session.mcp_servers()[0].tools}
        assert statuses["mcp__big__add"].state == "loaded"
        assert statuses["mcp__big__search_7"].state == "deferred"
        deferred = statuses["mcp__big__search_7"]
        assert deferred.sent_tokens < deferred.tokens / 3
        total_sent = sum(t.sent_tokens for t in statuses.values())
        assert total_sent <= 0.10 * 20_000
    finally:
        await session.aclose()


async def test_a_server_that_crashes_mid_call_is_reported_and_can_be_restarted(
        workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"demo": stdio_entry()}}})
    provider = ScriptedProvider(calls(("c1", "mcp__demo__crash", {})), answer("it crashed"),
                                calls(("c2", "mcp__demo__echo", {"text": "back"})),
                                answer("ok"))
    session = open_session(workspace, provider, mode="auto")
    try:
        session.start()
        finished = await session.send("crash it")
        assert finished.error is None  # the session goes on
        result = [i for i in session.engine if i.kind.value == "tool_call"][-1]
        assert result.call.is_error and "crashed" in result.content
        assert "restart" in result.content
        [status] = session.mcp_servers()
        assert status.state == "crashed"
        assert any("crashing on purpose" in line for line in session.mcp_log("demo"))
        message = await session.restart_mcp_server("demo")
        assert "restarted" in message
        await session.send("echo back")
        result = [i for i in session.engine if i.kind.value == "tool_call"][-1]
        assert "echo: back" in result.content
    finally:
        await session.aclose()


async def test_a_huge_result_is_capped_and_a_hang_times_out(
        workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {
        "demo": stdio_entry(), "stuck": stdio_entry(timeout=2)}}})
    provider = ScriptedProvider(calls(("c1", "mcp__demo__big", {"size": 5_000_000})),
                                calls(("c2", "mcp__demo__picture", {})),
                                calls(("c3", "mcp__stuck__hang", {})), answer("ok"))
    session = open_session(workspace, provider, mode="auto")
    try:
        session.start()
        finished = await session.send("big, picture, then hang")
        assert finished.error is None
        big, picture, hang = [i for i in session.engine if i.kind.value == "tool_call"]
        assert len(big.content) < 40_000 and "5,000,000 characters in all" in big.content
        assert big.tokens < 20_000
        assert "[image image/png, 1,008 bytes" in picture.content
        assert hang.call.is_error and "did not answer" in hang.content
        assert "within 2 s" in hang.content
    finally:
        await session.aclose()


async def test_streamable_http_server(workspace: Path, isolated_config: Path,
                                      http_server: HttpServer) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"remote": {
        "url": "${DEMO_URL}", "headers": {"Authorization": "Bearer ${DEMO_HTTP_TOKEN}"}}}}})
    env = {"DEMO_URL": http_server.url, "DEMO_HTTP_TOKEN": "tok-PLANTED-http-1234567890"}
    provider = ScriptedProvider(calls(("c1", "mcp__remote__add", {"a": 20, "b": 22})),
                                answer("42"))
    session = open_session(workspace, provider, mode="auto", env=env)
    try:
        session.start()
        await session.send("add over http")
        [status] = session.mcp_servers()
        assert status.state == "ready" and status.transport == "http", status.error
        result = [i for i in session.engine if i.kind.value == "tool_call"][-1]
        assert result.content.strip() == "42"
        # The header's token is redacted wherever swetui shows or stores text.
        assert session.engine.redact("Bearer tok-PLANTED-http-1234567890") != \
            "Bearer tok-PLANTED-http-1234567890"
        # The server dies while idle: its event stream breaks, a ping finds it gone.
        http_server.process.kill()
        await eventually(lambda: session.mcp_servers()[0].state == "crashed",
                         "the idle HTTP server's death shows")
        assert "stopped answering" in (session.mcp_servers()[0].error or "")
    finally:
        await session.aclose()


async def test_tools_loaded_from_deferral_stay_loaded_in_a_continued_session(
        workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {
        "context_limit": 20_000,
        "mcp": {"defer_share": 0.10, "servers": {"raw": raw_entry("40")}}})
    provider = ScriptedProvider(calls(("c1", TOOL_SEARCH, {"names": ["mcp__raw__echo"]})),
                                answer("loaded"))
    session = open_session(workspace, provider, mode="auto")
    try:
        session.start()
        await session.send("load echo")
        assert "mcp__raw__echo" in tool_names(provider)
    finally:
        await session.aclose()
    provider = ScriptedProvider(answer("still here"))
    session = open_session(workspace, provider, continue_last=True)
    try:
        session.start()
        await session.send("is echo still loaded?")
        # Loaded in full from the first request on; the others are still deferred.
        assert "mcp__raw__echo" in tool_names(provider, 0)
        assert TOOL_SEARCH in tool_names(provider, 0)
        assert "mcp__raw__search_3" not in tool_names(provider, 0)
        states = {t.name: t.state for t in session.mcp_servers()[0].tools}
        assert states["mcp__raw__echo"] == "loaded" and states["mcp__raw__noisy"] == "deferred"
    finally:
        await session.aclose()
    # A new session (not continued) starts from the deferral again.
    provider = ScriptedProvider(answer("fresh"))
    session = open_session(workspace, provider)
    try:
        session.start()
        await session.send("new session")
        assert "mcp__raw__echo" not in tool_names(provider, 0)
    finally:
        await session.aclose()


async def test_the_user_edits_an_mcp_calls_arguments_before_approving(
        workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"raw": raw_entry()}}})
    provider = ScriptedProvider(calls(("c1", "mcp__raw__echo", {"text": "rm -rf"})),
                                answer("done"))
    session = open_session(workspace, provider)
    try:
        session.start()
        turn = asyncio.create_task(session.send("echo something"))
        await eventually(lambda: session.queue.pending(), "the call waits for approval")
        [action] = session.queue.pending()
        # Not a JSON object: refused with a message, and the call still waits.
        for bad, said in (('{"text": ', "not valid JSON"), ('["x"]', "must be a JSON object")):
            try:
                session.queue.approve(action.id, edited=bad)
            except ValueError as exc:
                assert said in str(exc) and "nothing was approved" in str(exc)
            else:
                raise AssertionError(f"{bad!r} must be refused")
            assert session.queue.pending() == [action]
        session.queue.approve(action.id, edited='{"text": "hello"}')
        assert (await turn).error is None
        [result] = [i for i in session.engine if i.kind.value == "tool_call"]
        # The server got the user's arguments, and the model is told they changed.
        assert "echo: hello" in result.content and "rm -rf" not in result.content
        assert 'it ran with: {"text": "hello"}' in result.content
    finally:
        await session.aclose()
