"""The `mcp` SDK's side of a server connection: open the transport (stdio through the
sandbox's exec helper, or streamable HTTP), put a `MessageTap` between it and the client
session, list the tools, call one, ping.

Importing the SDK costs about half a second, so only `connection.py` imports this module,
and only when a server starts (in a worker thread): swetui's first frame never pays for it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import anyio
import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED, Tool

from swetui.agent.mcp.errors import CallFailed, ConnectionLost
from swetui.agent.mcp.exchanges import ExchangeEnded, watching_hook
from swetui.agent.mcp.results import tool_result
from swetui.agent.mcp.servers_config import ServerConfig
from swetui.agent.mcp.tap import TAP_ERROR, TAP_MARK, MessageTap, Waiting
from swetui.agent.sandbox import HELPER_SOURCE, INTERPRETER
from swetui.agent.tools.base import ToolResult
from swetui.secrets import redact

MAX_TOOL_PAGES = 50


@dataclass
class Watchers:
    """What the connection is told as it happens (called on the event loop)."""

    closed: Callable[[], None]
    malformed: Callable[[str, Waiting | None], None]
    exchange_ended: Callable[[ExchangeEnded], None]


@dataclass
class Link:
    """An open session with a server, and the tap watching it."""

    session: ClientSession
    tap: MessageTap


def describe(exc: BaseException) -> str:
    """A failure, in a line fit to show."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError):
        return exc.error.message
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect ({exc})"
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename or exc})"
    text = str(exc) or type(exc).__name__
    return text if len(text) < 300 else text[:300] + "…"


async def open_link(stack: AsyncExitStack, config: ServerConfig, root: Path,
                    errlog: Callable[[], TextIO], watchers: Watchers) -> Link:
    """Connect to the server and initialise the session (closed with `stack`)."""
    if config.transport == "http":
        client = httpx.AsyncClient(
            headers=dict(config.headers), timeout=httpx.Timeout(30.0, read=300.0),
            event_hooks={"response": [watching_hook(watchers.exchange_ended)]})
        await stack.enter_async_context(client)
        read, write, _ = await stack.enter_async_context(
            streamable_http_client(config.url, http_client=client))
    else:
        # The exec helper ties the server to swetui's life (the same as commands).
        spec = json.dumps({"confine": False, "parent": os.getpid()})
        cwd = root / config.cwd if config.cwd else root
        search = config.env.get("PATH", os.environ.get("PATH", os.defpath))
        if shutil.which(config.command, path=search) is None and \
                shutil.which(str(cwd / config.command)) is None:
            raise FileNotFoundError(2, "not found", config.command)
        params = StdioServerParameters(
            command=INTERPRETER,
            args=["-I", "-S", "-c", HELPER_SOURCE, spec, "--", config.command, *config.args],
            env=dict(config.env), cwd=str(cwd))
        pipe = errlog()
        try:
            read, write = await stack.enter_async_context(stdio_client(params, pipe))
        finally:
            pipe.close()  # the process holds its own copy
    tap = MessageTap(on_closed=watchers.closed, on_malformed=watchers.malformed)
    group = await stack.enter_async_context(anyio.create_task_group())
    # Closing: stop the tap's pumps before the transport closes (they wait on it).
    stack.callback(group.cancel_scope.cancel)
    stack.callback(setattr, tap, "stopping", True)
    session_read, session_write = tap.attach(group, read, write)
    session = await stack.enter_async_context(ClientSession(session_read, session_write))
    await session.initialize()
    return Link(session, tap)


async def list_tools(link: Link) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await link.session.list_tools(cursor)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            break
    return tools


async def call_tool(link: Link, server: str, tool: str, name: str,
                    arguments: dict[str, object]) -> ToolResult:
    """Call `tool` (the model's `name` for it); raises ConnectionLost (the connection
    closed during the call) or CallFailed, each with a message to show."""
    try:
        result = await link.session.call_tool(tool, dict(arguments))
    except McpError as exc:
        if exc.error.code == CONNECTION_CLOSED:
            raise ConnectionLost(f"the connection closed during a call to {tool}") from None
        if exc.error.code == TAP_ERROR and exc.error.data == TAP_MARK:
            raise CallFailed(f"{server}: {redact(exc.error.message)}") from None
        raise CallFailed(f"{server} refused the call: {redact(exc.error.message)}") from None
    except Exception as exc:
        raise CallFailed(f"the answer of {server} to {tool} could not be read: "
                         f"{redact(describe(exc))}") from None
    return tool_result(name, result)


async def ping(link: Link) -> None:
    """Raises when the server does not answer a ping (the caller bounds the wait)."""
    await link.session.send_ping()
