"""MCP servers in the workspace: the gauge lists each server's tokens under the system
layer, the inspector groups tools under a header per server (selecting it selects the
server's tools), and /mcp and the palette restart a server or drop its tools. The server is
real (tests/mcp/demo_server.py over stdio)."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.items import ItemState, Layer
from swetui.ui.palette import McpCommands
from swetui.ui.screens.trust_review import TrustReview
from swetui.ui.widgets.inspector_rows import HeaderRow
from tests.mcp.conftest import mcp_json, raw_entry, stdio_entry, write_user_config
from tests.ui.test_trust_pilot import notices
from tests.ui.waits import until


async def test_servers_show_in_the_gauge_the_inspector_and_the_palette(
        make_app, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"demo": stdio_entry()}}})
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        await until(pilot, lambda: [s.state for s in screen.gauge.servers] == ["ready"],
                    "the server started in the background")
        gauge = screen.gauge.render().plain
        assert "⚙ demo" in gauge and "7 tools" in gauge
        engine = app.session.engine
        header = HeaderRow(Layer.SYSTEM, "demo")
        await until(pilot, lambda: screen.inspector.rows.index_of(header) is not None,
                    "the inspector has a header for the server")
        tools = screen.inspector.rows.items_under(header)
        assert len(tools) == 7 and all(item_id.startswith("tool:mcp__demo__")
                                       for item_id in tools)
        # Selecting the server's header selects its tools; d drops them all.
        screen.inspector.focus()
        screen.inspector._move(screen.inspector.rows.index_of(header))
        await pilot.press("space")
        assert screen.inspector.selected == set(tools)
        await pilot.press("d")
        await until(pilot, lambda: all(engine.get(t).state is ItemState.DROPPED
                                       for t in tools), "the tools were dropped")
        names = [name for name, _, _ in McpCommands(screen).commands()]
        assert "MCP: restart demo" in names and "MCP: stderr log of demo" in names
        screen.run_slash("/mcp restore demo")
        await until(pilot, lambda: all(engine.get(t).state is ItemState.INCLUDED
                                       for t in tools), "/mcp restore brought them back")
        first = app.session.mcp.connections["demo"]._runner
        screen.run_slash("/mcp restart demo")
        await until(pilot, lambda: app.session.mcp.connections["demo"]._runner
                    not in (None, first) and app.session.mcp_servers()[0].state == "ready",
                    "the server restarted")


async def test_a_repository_mcp_json_trusted_mid_session_starts_its_servers_at_once(
        make_app, workspace: Path) -> None:
    mcp_json(workspace, {"repo": raw_entry()})
    app = make_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustReview), "the trust review")
        assert app.session.mcp_servers() == []  # untrusted: nothing started
        await pilot.press("t")
        await until(pilot, lambda: "MCP servers: starting repo" in notices(app),
                    "the user is told the servers start now")
        await until(pilot, lambda: [s.state for s in app.screen.gauge.servers] == ["ready"],
                    "the server started without a restart")
        assert "tool:mcp__repo__echo" in app.session.engine
