"""One MCP server, through the official `mcp` SDK: started in the background, its tools
listed, calls made with a time limit, stopped or restarted on request.

A stdio server runs through the sandbox's exec helper, unconfined but tied to swetui's life
(a parent-death signal kills it and whatever it started, however swetui ends), in its own
process group, with only the environment the SDK passes (HOME, PATH, … and its own `env`).
Its stderr goes to a redacted log. Every failure becomes a `ServerUnavailable` or
`CallFailed` whose message is fit to show; nothing here raises into the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Literal

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED, CallToolResult, Tool

from swetui.agent.mcp.servers_config import ServerConfig
from swetui.agent.mcp.stderr_log import StderrLog
from swetui.agent.sandbox import HELPER_SOURCE, INTERPRETER
from swetui.secrets import redact

State = Literal["starting", "ready", "failed", "crashed", "stopped", "disabled"]
MAX_TOOL_PAGES = 50


class ServerUnavailable(Exception):
    """The server is not running; the message says why and what to do."""


class CallFailed(Exception):
    """A call did not produce a result (timeout, crash, unreadable answer)."""


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
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


class ServerConnection:
    """A configured server and, once started, its live session."""

    def __init__(self, config: ServerConfig, root: Path, log_file: Path | None,
                 startup_timeout: float = 30.0) -> None:
        self.config = config
        self.root = root
        self.startup_timeout = startup_timeout
        self.stderr = StderrLog(log_file)
        self.state: State = "stopped" if config.enabled else "disabled"
        self.error: str | None = None
        self.tools: list[Tool] = []
        self._session: ClientSession | None = None
        self._runner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()

    @property
    def name(self) -> str:
        return self.config.name

    # -- starting and stopping -------------------------------------------------------------

    async def start(self) -> None:
        """Start the server and list its tools; returns when it is ready or has failed
        (never raises: `state` and `error` say how it went)."""
        await self.stop()
        self.state, self.error, self.tools = "starting", None, []
        self._ready, self._stop = asyncio.Event(), asyncio.Event()
        self._runner = asyncio.create_task(self._run(), name=f"mcp-{self.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.startup_timeout)
        except TimeoutError:
            self._fail("failed", f"did not answer within {self.startup_timeout:g} s of "
                                 "starting")
            await self._end_runner()

    async def stop(self, state: State = "stopped") -> None:
        """Stop the server (its process and what it started die with it)."""
        if self._runner is not None:
            self._stop.set()
            await self._end_runner()
        if self.state in ("starting", "ready"):
            self.state = state
        self._session = None

    async def _end_runner(self) -> None:
        runner, self._runner = self._runner, None
        if runner is None or runner.done():
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(runner), 10.0)
        except (TimeoutError, asyncio.CancelledError):
            runner.cancel()
            with contextlib.suppress(BaseException):
                await runner
        except Exception:
            pass

    def _fail(self, state: State, message: str) -> None:
        tail = [line for line in self.stderr.tail(3) if not line.startswith("[swetui]")]
        if tail and state in ("failed", "crashed"):
            message += f" — stderr: {' | '.join(tail)}"
        self.state, self.error = state, redact(message)
        self._session = None
        self.stderr.note(f"{state}: {message}")
        self._ready.set()

    async def _run(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                session = await self._connect(stack)
                await session.initialize()
                self.tools = await self._list_tools(session)
                self._session, self.state = session, "ready"
                self.stderr.note(f"ready: {len(self.tools)} tools")
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            if self.state in ("starting", "ready"):
                self.state = "stopped"
            raise
        except Exception as exc:
            if self.state == "starting":
                self._fail("failed", f"could not start: {_describe(exc)}")
            elif self.state == "ready":
                self._fail("crashed", f"stopped answering: {_describe(exc)}")
        finally:
            self._session = None
            self._ready.set()
            self.stderr.close()

    async def _connect(self, stack: AsyncExitStack) -> ClientSession:
        config = self.config
        if config.transport == "http":
            client = create_mcp_http_client(headers=dict(config.headers),
                                            timeout=httpx.Timeout(30.0, read=300.0))
            await stack.enter_async_context(client)
            read, write, _ = await stack.enter_async_context(
                streamable_http_client(config.url, http_client=client))
        else:
            # The exec helper ties the server to swetui's life (the same as commands).
            spec = json.dumps({"confine": False, "parent": os.getpid()})
            cwd = self.root / config.cwd if config.cwd else self.root
            search = config.env.get("PATH", os.environ.get("PATH", os.defpath))
            if shutil.which(config.command, path=search) is None and \
                    shutil.which(str(cwd / config.command)) is None:
                raise FileNotFoundError(2, "not found", config.command)
            params = StdioServerParameters(
                command=INTERPRETER,
                args=["-I", "-S", "-c", HELPER_SOURCE, spec, "--", config.command,
                      *config.args],
                env=dict(config.env), cwd=str(cwd))
            errlog = self.stderr.open_pipe()
            try:
                read, write = await stack.enter_async_context(stdio_client(params, errlog))
            finally:
                errlog.close()  # the process holds its own copy
        return await stack.enter_async_context(ClientSession(read, write))

    @staticmethod
    async def _list_tools(session: ClientSession) -> list[Tool]:
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            page = await session.list_tools(cursor)
            tools.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                break
        return tools

    # -- calling ---------------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, object],
                   timeout: float | None = None) -> CallToolResult:
        """Call `tool`; raises ServerUnavailable or CallFailed with a message to show."""
        session = self._session
        if session is None or self.state != "ready":
            why = f": {self.error}" if self.error else ""
            raise ServerUnavailable(f"the MCP server {self.name} is {self.state}{why}. The "
                                    "user can restart it (ctrl+p → Restart MCP server).")
        limit = timeout or self.config.timeout
        try:
            return await asyncio.wait_for(session.call_tool(tool, dict(arguments)), limit)
        except TimeoutError:
            self.stderr.note(f"call {tool} abandoned after {limit:g} s")
            raise CallFailed(f"the MCP server {self.name} did not answer {tool} within "
                             f"{limit:g} s; the call was abandoned (the server may be stuck: "
                             "the user can restart it from the palette)") from None
        except McpError as exc:
            if exc.error.code == CONNECTION_CLOSED:
                self._fail("crashed", f"the connection closed during a call to {tool}")
                self._stop.set()
                raise CallFailed(f"the MCP server {self.name} crashed during this call "
                                 f"({self.error}). The user can restart it from the "
                                 "palette.") from None
            raise CallFailed(f"{self.name} refused the call: {redact(exc.error.message)}") \
                from None
        except Exception as exc:
            raise CallFailed(f"the answer of {self.name} to {tool} could not be read: "
                             f"{redact(_describe(exc))}") from None
