"""Safe to clone and safe to leave: a repository's servers start only once trusted, a stdio
server dies with swetui however swetui ends, a server that cannot start says why, and
`swetui mcp` lists what runs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from swetui.cli import main
from tests.agent.scripted import ScriptedProvider, answer
from tests.mcp.conftest import (
    DEMO,
    mcp_json,
    open_session,
    raw_entry,
    stdio_entry,
    write_user_config,
)
from tests.trusted import trust_workspace
from tests.waiting import eventually


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


async def test_repository_servers_start_only_after_trust(workspace: Path,
                                                         tmp_path: Path) -> None:
    marker = tmp_path / "started"
    mcp_json(workspace, {"repo": stdio_entry(env={"DEMO_MARKER": str(marker)})})
    session = open_session(workspace, ScriptedProvider(answer("ok")))
    try:
        session.start()
        await session.send("hello")
        assert session.mcp_servers() == [] and not marker.exists()
        assert not [item for item in session.engine if item.id.startswith("tool:mcp__")]
    finally:
        await session.aclose()
    trust_workspace(workspace)
    session = open_session(workspace, ScriptedProvider(answer("ok")))
    try:
        session.start()
        await session.send("hello")
        assert marker.exists() and session.mcp_servers()[0].state == "ready"
    finally:
        await session.aclose()
    assert not alive(int(marker.read_text()))  # closing the session stopped it


def test_a_stdio_server_dies_with_swetui_even_killed(tmp_path: Path) -> None:
    marker = tmp_path / "server.pid"
    script = tmp_path / "host.py"
    script.write_text(textwrap.dedent(f"""
        import asyncio, sys
        from pathlib import Path
        from swetui.agent.mcp.connection import ServerConnection
        from swetui.agent.mcp.servers_config import ServerConfig

        async def main():
            config = ServerConfig(name="demo", transport="stdio", origin="user",
                                  command=sys.executable, args=({DEMO!r}, "stdio"),
                                  env={{"DEMO_MARKER": {json.dumps(str(marker))}}})
            connection = ServerConnection(config, Path.cwd(), None)
            await connection.start()
            print(connection.state, flush=True)
            await asyncio.Event().wait()

        asyncio.run(main())
    """))
    host = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, start_new_session=True)
    server = None
    try:
        assert host.stdout is not None and host.stdout.readline().strip() == "ready"
        server = int(marker.read_text())
        assert alive(server)
        os.kill(host.pid, signal.SIGKILL)
        host.wait(timeout=60)
        asyncio.run(eventually(lambda: not alive(server), "the server died with its host"))
    finally:
        if host.poll() is None:
            host.kill()
        if server is not None and alive(server):
            os.kill(server, signal.SIGKILL)


def test_swetui_mcp_lists_servers_tools_and_costs(workspace: Path, isolated_config: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {
        "demo": stdio_entry(), "gone": {"command": "/no/such/server-binary"}}}})
    code = main(["mcp", str(workspace), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1  # one server did not start
    servers = {server["name"]: server for server in report["servers"]}
    assert servers["demo"]["state"] == "ready" and servers["demo"]["tools"] == 7
    costs = {tool["name"]: tool["tokens"] for tool in servers["demo"]["tool_list"]}
    assert costs["mcp__demo__echo"] > 20 and servers["demo"]["tokens"] == sum(costs.values())
    assert servers["gone"]["state"] == "failed"
    assert "/no/such/server-binary" in servers["gone"]["error"]
    assert "not found" in servers["gone"]["error"]


def test_swetui_context_json_has_per_server_totals(workspace: Path, isolated_config: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"demo": stdio_entry()}}})
    assert main(["context", str(workspace), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [server] = report["mcp"]
    tools = [item for item in report["items"] if item["id"].startswith("tool:mcp__demo__")]
    assert server["name"] == "demo" and server["tools"] == len(tools) == 7
    assert server["sent_tokens"] == sum(item["tokens"] for item in tools)


def test_the_sdk_is_imported_only_when_a_server_starts(workspace: Path) -> None:
    """Importing the `mcp` SDK takes about half a second: the first frame must not pay it,
    with or without servers configured (they start after it, in the background)."""
    probe = ("import sys, swetui.cli, swetui.agent.session, swetui.ui.app, "
             "swetui.commands.context; print(sorted(m for m in sys.modules if m == 'mcp' "
             "or m.startswith('mcp.')))")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           check=True, cwd=workspace)
    assert found.stdout.strip() == "[]", found.stdout


async def test_a_reload_starts_new_restarts_changed_and_stops_removed_servers(
        workspace: Path) -> None:
    mcp_json(workspace, {"one": raw_entry(), "two": raw_entry()})
    session = open_session(workspace, ScriptedProvider(answer("ok")))
    try:
        session.start()
        assert await session.reload_mcp_servers() is None  # not trusted: nothing to do
        trust_workspace(workspace)
        assert await session.reload_mcp_servers() == "MCP servers: starting one, two"
        await session.mcp.wait_started()
        assert {s.name: s.state for s in session.mcp_servers()} == {"one": "ready",
                                                                  "two": "ready"}
        first = session.mcp.connections["one"]
        mcp_json(workspace, {"one": raw_entry("3")})  # changed: one gains tools, two goes
        trust_workspace(workspace)
        message = await session.reload_mcp_servers()
        assert message == "MCP servers: starting one; stopped two"
        await session.mcp.wait_started()
        [status] = session.mcp_servers()
        assert status.name == "one" and status.state == "ready"
        assert session.mcp.connections["one"] is not first and first.state == "stopped"
        assert "tool:mcp__one__search_2" in session.engine
        assert not [i for i in session.engine if i.id.startswith("tool:mcp__two__")]
    finally:
        await session.aclose()
