"""`swetui mcp`: the workspace's MCP servers — started, listed with their state, tools and
token costs, stopped again — as a table or as JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from swetui.agent import (
    TOOL_SCHEMAS,
    McpServers,
    ServerStatus,
)
from swetui.config import Settings
from swetui.engine.context import ContextEngine
from swetui.engine.workspace import open_workspace
from swetui.options import LaunchOptions, settings_for
from swetui.secrets import STORE
from swetui.text import terminal_safe
from swetui.trust import MCP, trust_state


async def started_servers(root: Path, settings: Settings, engine: ContextEngine) -> McpServers:
    """The workspace's servers, started (each bounded by `mcp.startup_timeout`), their
    tools' items in `engine`. The caller closes them."""
    servers = McpServers(root, settings, engine, environ=STORE.environment())
    servers.start()
    await servers.wait_started()
    return servers


async def mcp_statuses(root: Path, settings: Settings,
                       engine: ContextEngine) -> list[ServerStatus]:
    """Start the workspace's servers (if it has any), put their tools in `engine`, and
    report them; the servers are stopped again."""
    if not settings.mcp.servers and not (root / MCP).exists():
        return []
    servers = await started_servers(root, settings, engine)
    try:
        return servers.statuses()
    finally:
        await servers.aclose()


def server_report(status: ServerStatus) -> dict[str, Any]:
    """One server in `swetui mcp --json` and `swetui context --json`."""
    return {"name": status.name, "origin": status.origin, "transport": status.transport,
            "target": status.target, "state": status.state, "error": status.error,
            "dropped": status.dropped, "tools": len(status.tools), "tokens": status.tokens,
            "sent_tokens": status.sent_tokens, "log": status.log_file,
            "tool_list": [tool.model_dump() for tool in status.tools]}


async def _collect(options: LaunchOptions) -> tuple[list[ServerStatus], bool, list[str]]:
    root, settings = settings_for(options)
    workspace = open_workspace(root, settings, TOOL_SCHEMAS, persist=False)
    servers = await started_servers(root, settings, workspace.engine)
    try:
        problems = {problem.message for problem in servers.configured.problems}
        notices = [notice for notice in servers.notices if notice not in problems]
        if servers.configured.untrusted:
            notices.append(f"{MCP} names MCP servers that start only once you trust it: "
                           "swetui trust")
        return servers.statuses(), servers.deferred, notices
    finally:
        await servers.aclose()


def show_mcp(options: LaunchOptions, *, as_json: bool) -> int:
    statuses, deferred, notices = asyncio.run(_collect(options))
    for notice in notices:
        print(f"swetui: {terminal_safe(notice)}", file=sys.stderr)
    failed = [s for s in statuses if s.state not in ("ready", "disabled")]
    if as_json:
        print(json.dumps({"deferred": deferred,
                          "servers": [server_report(s) for s in statuses]}, indent=2))
        return 1 if failed else 0
    if not statuses:
        state = trust_state(options.path)
        where = " (its .mcp.json is not trusted yet)" if not state.is_trusted(MCP) else ""
        print(f"No MCP servers configured{where}. Add them to .mcp.json (mcpServers) or "
              "[mcp.servers.NAME] in swetui's config.")
        return 0
    for status in statuses:
        tools = f"{len(status.tools)} tools, {status.tokens:,} tokens " \
                f"({status.sent_tokens:,} sent)" if status.state == "ready" else ""
        print(terminal_safe(f"{status.name}  [{status.state}]  {status.transport} "
                            f"{status.target}  ({status.origin})  {tools}", newlines=False))
        if status.error:
            print(f"  {terminal_safe(status.error, newlines=False)}")
        if status.log_file:
            print(f"  stderr log: {terminal_safe(status.log_file, newlines=False)}")
        for tool in status.tools:
            print(f"  {tool.tokens:>6,}  {tool.state:<8}  "
                  f"{terminal_safe(tool.name, newlines=False)}")
    if deferred:
        print("\nTool schemas are deferred (past mcp.defer_share of the window): the model "
              "sees names and one line each, and loads schemas with tool_search.")
    return 1 if failed else 0
