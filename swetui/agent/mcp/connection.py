"""One MCP server, through the official `mcp` SDK: started in the background, its tools
listed, calls made with a time limit, stopped or restarted on request — and watched, so its
state follows the server: a stdio server whose process exits, even while idle, is `crashed`
at once; an HTTP answer that breaks off or a malformed frame ends the call at once with a
message, not at its timeout.

A stdio server runs through the sandbox's exec helper, unconfined but tied to swetui's life
(a parent-death signal kills it and whatever it started, however swetui ends), in its own
process group, with only the environment the SDK passes (HOME, PATH, … and its own `env`).
Its stderr goes to a redacted log. Every failure becomes a `ServerUnavailable` or
`CallFailed` whose message is fit to show; nothing here raises into the session.

The SDK itself is imported (in a worker thread) only when the first server starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from swetui.agent.mcp.errors import CallFailed, ConnectionLost, ServerUnavailable
from swetui.agent.mcp.servers_config import ServerConfig
from swetui.agent.mcp.stderr_log import StderrLog
from swetui.agent.tools.base import ToolResult
from swetui.secrets import redact

if TYPE_CHECKING:
    from mcp.types import Tool

    from swetui.agent.mcp.client import Link
    from swetui.agent.mcp.exchanges import ExchangeEnded
    from swetui.agent.mcp.tap import Waiting

State = Literal["starting", "ready", "failed", "crashed", "stopped", "disabled"]
PING_LIMIT = 10.0
"""Seconds a server may take to answer the ping that checks it is still there."""
MALFORMED_LOGGED = 20
"""Stray malformed frames logged per start (answers to calls are always logged)."""
RESTART_HINT = "restart it with /mcp restart {name} (or ctrl+p → MCP: restart {name})"

__all__ = ["CallFailed", "ServerConnection", "ServerUnavailable", "State"]


async def load_sdk() -> None:
    """Import the SDK's side once, off the event loop (it takes about half a second)."""
    await asyncio.to_thread(importlib.import_module, "swetui.agent.mcp.client")


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
        self.malformed = 0
        """Frames from the server that were not valid JSON-RPC, since it started."""
        self.on_lost: Callable[[ServerConnection], None] | None = None
        """Called when the connection finds on its own that the server is gone."""
        self._link: Link | None = None
        self._runner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        """Set when the server went away on its own: calls waiting on it end at once."""
        self._check: asyncio.Task[None] | None = None
        self._unanswered: dict[int | str, str | None] = {}
        self._last_malformed: str | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def restart_hint(self) -> str:
        return RESTART_HINT.format(name=self.name)

    # -- starting and stopping -------------------------------------------------------------

    async def start(self) -> None:
        """Start the server and list its tools; returns when it is ready or has failed
        (never raises: `state` and `error` say how it went)."""
        await self.stop()
        self.state, self.error, self.tools, self.malformed = "starting", None, [], 0
        self._ready, self._stop, self._gone = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._runner = asyncio.create_task(self._run(), name=f"mcp-{self.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.startup_timeout)
        except TimeoutError:
            self._fail("failed", f"did not answer within {self.startup_timeout:g} s of "
                                 "starting")
            await self._end_runner()

    async def stop(self, state: State = "stopped") -> None:
        """Stop the server (its process and what it started die with it)."""
        if self._check is not None:
            self._check.cancel()
            self._check = None
        if self._runner is not None:
            self._stop.set()
            await self._end_runner()
        if self.state in ("starting", "ready"):
            self.state = state
        self._link = None

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
        self._link = None
        self.stderr.note(f"{state}: {message}")
        self._ready.set()

    def _lost(self, message: str) -> None:
        """The server went away on its own: say so, stop what is left, tell the owner."""
        if self.state != "ready" or self._stop.is_set():
            return  # not running, or being stopped on purpose
        self._fail("crashed", message)
        self._gone.set()
        self._stop.set()
        if self.on_lost is not None:
            self.on_lost(self)

    async def _run(self) -> None:
        try:
            await load_sdk()
            # Imported above, in a worker thread; this only binds the module.
            from swetui.agent.mcp import client
            async with AsyncExitStack() as stack:
                watchers = client.Watchers(closed=self._closed, malformed=self._malformed,
                                           exchange_ended=self._exchange_ended)
                link = await client.open_link(stack, self.config, self.root,
                                              self.stderr.open_pipe, watchers)
                self.tools = await client.list_tools(link)
                self._link, self.state = link, "ready"
                self.stderr.note(f"ready: {len(self.tools)} tools")
                self._ready.set()
                await self._stop.wait()
                self._link = None  # what closes from here on is expected
        except asyncio.CancelledError:
            if self.state in ("starting", "ready"):
                self.state = "stopped"
            raise
        except Exception as exc:
            from swetui.agent.mcp.client import describe  # loaded: the runner imported it
            if self.state == "starting":
                self._fail("failed", f"could not start: {describe(exc)}")
            elif self.state == "ready":
                self._lost(f"stopped answering: {describe(exc)}")
        finally:
            self._link = None
            self._ready.set()
            self.stderr.close()

    # -- watching --------------------------------------------------------------------------

    def _closed(self) -> None:
        """The transport's stream ended while the session was open."""
        what = "process exited" if self.config.transport == "stdio" else "connection closed"
        self._lost(f"the server's {what}")

    def _malformed(self, text: str, waiting: Waiting | None) -> None:
        self.malformed += 1
        self._last_malformed = text
        if self.malformed > MALFORMED_LOGGED and waiting is None:
            if self.malformed == MALFORMED_LOGGED + 1:
                self.stderr.note("more messages that are not valid JSON-RPC follow; only "
                                 "those answering a call are logged from now on")
            return  # a server flooding its stdout must not flood the log
        where = f" (answering {waiting.what})" if waiting else ""
        self.stderr.note(f"not a valid JSON-RPC message{where}: {text}")

    def _exchange_ended(self, ended: ExchangeEnded) -> None:
        """An HTTP response closed: a broken GET stream or an unanswered POST means the
        server may be gone, or an answer was lost; a ping tells which."""
        link = self._link
        if link is None or self.state != "ready":
            return
        if ended.method == "POST":
            if ended.request_id is None or ended.request_id not in link.tap.waiting:
                return
            self._unanswered[ended.request_id] = ended.broken
        elif ended.method != "GET" or ended.status != 200:
            return  # only an open event stream that ended says anything
        if self._check is None or self._check.done():
            self._check = asyncio.create_task(self._checked(link, ended.broken),
                                              name=f"mcp-check-{self.name}")

    async def _checked(self, link: Link, broken: str | None) -> None:
        """Ping the server: gone → crashed; there → fail the requests left unanswered."""
        from swetui.agent.mcp.client import describe, ping  # loaded: the runner imported it
        try:
            await asyncio.wait_for(ping(link), PING_LIMIT)
        except Exception as exc:
            why = broken or describe(exc)
            self._lost(f"stopped answering ({why})")
            return
        unanswered, self._unanswered = self._unanswered, {}
        await self._fail_unanswered(link, unanswered)
        if self._unanswered:  # more ended meanwhile: the ping above came before them
            await self._checked(link, None)

    async def _fail_unanswered(self, link: Link, unanswered: dict[int | str, str | None]
                               ) -> None:
        for request_id, cut in unanswered.items():
            waiting = link.tap.waiting.get(request_id)
            if waiting is None:
                continue
            if cut:
                message = (f"the connection broke before the answer to {waiting.what} "
                           f"arrived ({cut}); the server is still running, so the call may "
                           "or may not have taken effect")
            else:
                detail = f": {self._last_malformed}" if self._last_malformed else ""
                message = f"the server's answer to {waiting.what} could not be read{detail}"
            self.stderr.note(message)
            await link.tap.fail(request_id, message)

    # -- calling ---------------------------------------------------------------------------

    async def call(self, tool: str, name: str, arguments: dict[str, object],
                   timeout: float | None = None) -> ToolResult:
        """Call `tool` (the model's `name` for it); raises ServerUnavailable or CallFailed
        with a message to show."""
        link = self._link
        if link is None or self.state != "ready":
            why = f": {self.error}" if self.error else ""
            raise ServerUnavailable(f"the MCP server {self.name} is {self.state}{why}. The "
                                    "user can restart it (ctrl+p → MCP: restart "
                                    f"{self.name}).")
        from swetui.agent.mcp.client import call_tool  # loaded: the server is ready
        limit = timeout or self.config.timeout
        malformed = self.malformed
        work = asyncio.ensure_future(call_tool(link, self.name, tool, name, arguments))
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            # Whichever comes first: the answer, the server going away, the time limit.
            await asyncio.wait({work, gone}, timeout=limit,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not work.done():
                work.cancel()
                with contextlib.suppress(BaseException):
                    await work
        if work.done() and not work.cancelled():
            try:
                return work.result()
            except ConnectionLost as exc:
                self._lost(str(exc))
                raise self._crashed() from None
        if self._gone.is_set():
            raise self._crashed()
        self.stderr.note(f"call {tool} abandoned after {limit:g} s")
        noise = self.malformed - malformed
        extra = (f" It also sent {noise} malformed message(s) meanwhile (see /mcp log "
                 f"{self.name}).") if noise else ""
        raise CallFailed(f"the MCP server {self.name} did not answer {tool} within "
                         f"{limit:g} s; the call was abandoned (the server may be stuck: "
                         f"the user can {self.restart_hint}).{extra}")

    def _crashed(self) -> CallFailed:
        return CallFailed(f"the MCP server {self.name} crashed during this call "
                          f"({self.error}). The user can {self.restart_hint}.")
