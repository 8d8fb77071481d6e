"""`McpServers`: every MCP server of a session — started in the background, their tools kept
as context items (sent, deferred, loaded or dropped), calls routed to them, restarts.

Deferral is decided when servers start or change, never per turn (a change of the tool list
changes the cached prefix): when the full schemas of the tools the user kept pass
`mcp.defer_share` of the window, every tool not yet loaded is sent as its name and one line,
with `tool_search` to load schemas, which then stay loaded for the session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from swetui.agent.mcp.catalog import (
    TOOL_SEARCH_SCHEMA,
    ToolState,
    ToolStatus,
    matching_tools,
    schema_of,
    tool_item,
)
from swetui.agent.mcp.choices import ToolChoices
from swetui.agent.mcp.connection import CallFailed, ServerConnection, ServerUnavailable
from swetui.agent.mcp.names import TOOL_SEARCH, item_id, server_of
from swetui.agent.mcp.servers_config import ConfiguredServers, ServerConfig, configured_servers
from swetui.agent.mcp.status import McpServersChanged, ServerStatus
from swetui.agent.tools.base import ToolError, ToolResult
from swetui.config import Settings
from swetui.engine.assembly import tool_schema_text
from swetui.engine.context import ContextEngine
from swetui.engine.events import ItemsChanged
from swetui.engine.items import ContextItem, ItemState
from swetui.engine.tokens import MESSAGE_OVERHEAD
from swetui.messages import ToolSchema
from swetui.paths import WorkspacePaths
from swetui.trust import TrustState, trust_state

if TYPE_CHECKING:
    from mcp.types import Tool

REASON = "mcp"
"""ItemsChanged reasons of swetui's own changes start with this (user choices do not)."""
LOADED = "mcp_loaded"
"""The session-log record of tools `tool_search` loaded (a resumed session keeps them)."""
Record = Callable[[str, dict[str, Any]], None]


class McpServers:
    """The MCP servers of one session and their tools' items in the engine."""

    def __init__(self, root: Path, settings: Settings, engine: ContextEngine, *,
                 environ: Mapping[str, str], trust: TrustState | None = None,
                 persist: bool = True, record: Record | None = None) -> None:
        self.root = root
        self.settings = settings
        self.engine = engine
        paths = WorkspacePaths(root)
        self.environ = environ
        self.configured: ConfiguredServers = configured_servers(
            settings, trust if trust is not None else trust_state(root), environ)
        self._logs = paths.logs if persist else None
        self.connections = {config.name: self._connect(config)
                            for config in self.configured.servers}
        self.choices = ToolChoices(paths.dir / "mcp-choices.json" if persist else None)
        self.deferred = False
        self.loaded: set[str] = set()
        self._record = record
        self._schemas: dict[str, tuple[ServerConnection, Tool, ToolSchema]] = {}
        self._starting: asyncio.Task[None] | None = None
        self._syncing = False
        engine.bus.subscribe(self._on_items_changed, ItemsChanged)

    @property
    def notices(self) -> list[str]:
        """Problems to tell the user at start (bad entries, unset variables)."""
        found = [problem.message for problem in self.configured.problems]
        if self.choices.problem:
            found.append(self.choices.problem)
        return found

    def restore(self, replayed: Sequence[dict[str, Any]]) -> None:
        """The tools a resumed session had loaded stay loaded (once their server is up)."""
        for event in replayed:
            if event.get("type") == LOADED and isinstance(event.get("tools"), list):
                self.loaded.update(name for name in event["tools"] if isinstance(name, str))

    def _connect(self, config: ServerConfig) -> ServerConnection:
        log = self._logs / f"mcp-{config.name}.log" if self._logs else None
        connection = ServerConnection(config, self.root, log, self.settings.mcp.startup_timeout)
        connection.on_lost = self._lost
        return connection

    # -- lifetime --------------------------------------------------------------------------

    def start(self) -> None:
        """Start every enabled server in the background (never waits)."""
        if self._starting is None and self.connections:
            self._starting = asyncio.create_task(self._start_all(), name="mcp-start")

    async def _start_all(self, among: list[ServerConnection] | None = None) -> None:
        wanted = [c for c in among or self.connections.values() if c.config.enabled]
        for connection in wanted:
            connection.state = "starting"
        self._publish()
        await asyncio.gather(*(connection.start() for connection in wanted))
        self._changed(self._failures(wanted))

    async def reload(self) -> str | None:
        """Read the configured servers again (the user just trusted `.mcp.json`): start the
        new ones and restart the changed ones in the background, stop those gone. Returns
        what changed, for the user (None: nothing)."""
        self.configured = configured_servers(self.settings, trust_state(self.root),
                                             self.environ)
        wanted = {config.name: config for config in self.configured.servers}
        gone = [name for name in self.connections if name not in wanted]
        for name in gone:
            await self.connections.pop(name).stop()
        fresh = [name for name, config in wanted.items()
                 if name not in self.connections or self.connections[name].config != config]
        for name in fresh:
            if name in self.connections:
                await self.connections[name].stop()
            self.connections[name] = self._connect(wanted[name])
        if fresh:
            if self._starting is not None and not self._starting.done():
                await asyncio.shield(self._starting)
            self._starting = asyncio.create_task(
                self._start_all([self.connections[name] for name in fresh]), name="mcp-start")
        elif gone:
            self._changed()
        parts = [f"starting {', '.join(fresh)}"] if fresh else []
        parts += [f"stopped {', '.join(gone)}"] if gone else []
        if not parts:
            return None
        message = f"MCP servers: {'; '.join(parts)}"
        if self._record is not None:
            self._record("mcp_reload", {"message": message})
        return message

    async def wait_started(self) -> None:
        """Until every server has started or failed (a turn waits for this)."""
        if self._starting is not None:
            await asyncio.shield(self._starting)

    async def restart(self, name: str) -> str:
        """Restart one server (the palette's restart); returns what happened."""
        connection = self._connection(name)
        await connection.start()
        self._changed(self._failures([connection]))
        if connection.state == "ready":
            message = f"MCP server {name} restarted: {len(connection.tools)} tools"
        else:
            message = f"MCP server {name} did not start: {connection.error}"
        if self._record is not None:
            self._record("mcp_restart", {"server": name, "message": message})
        return message

    async def aclose(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
            with contextlib.suppress(BaseException):
                await self._starting
        await asyncio.gather(*(c.stop() for c in self.connections.values()),
                             return_exceptions=True)
        for connection in self.connections.values():
            connection.stderr.close_file()

    def _connection(self, name: str) -> ServerConnection:
        try:
            return self.connections[name]
        except KeyError:
            known = ", ".join(sorted(self.connections)) or "none"
            raise ValueError(f"no MCP server {name!r} (configured: {known})") from None

    def _lost(self, connection: ServerConnection) -> None:
        """A server went away on its own (its process exited, its connection broke)."""
        self._changed(f"MCP server {connection.name} crashed: {connection.error}; "
                      f"{connection.restart_hint}.")

    @staticmethod
    def _failures(connections: list[ServerConnection]) -> str | None:
        failed = [f"MCP server {c.name} {c.state}: {c.error}" for c in connections
                  if c.state in ("failed", "crashed")]
        return "; ".join(failed) or None

    # -- the user's choices ----------------------------------------------------------------

    def set_server_dropped(self, name: str, dropped: bool) -> str:
        """Drop a whole server's tools from the context, or restore them (remembered)."""
        self._connection(name)
        before = self._sent(name)
        self.choices.set_server(name, dropped)
        self._sync()
        self._publish()
        after = self._sent(name)
        if dropped:
            return f"MCP server {name}: tools dropped from the context; the next request " \
                   f"is {before - after:,} tokens smaller"
        return f"MCP server {name}: tools restored to the context; the next request is " \
               f"{after - before:,} tokens larger"

    def _sent(self, server: str) -> int:
        """Tokens the server's tools cost in the next request."""
        return sum(self.engine.sent_tokens(item_id(name))
                   for name, (connection, _t, _s) in self._schemas.items()
                   if connection.name == server)

    def set_tool_dropped(self, name: str, dropped: bool) -> None:
        """Drop or restore one tool (remembered); the next request changes accordingly."""
        if name not in self._schemas:
            raise ValueError(f"no MCP tool {name!r}")
        self.choices.set_tool(name, dropped)
        self._sync()
        self._publish()

    def _on_items_changed(self, event: BaseModel) -> None:
        """The user dropped or restored an MCP tool's item in the inspector: remember it,
        and put a restored deferred tool back to deferred."""
        if not isinstance(event, ItemsChanged) or self._syncing \
                or event.reason.startswith(REASON):
            return
        touched = False
        for item_id_ in event.ids:
            name = item_id_.removeprefix("tool:")
            if name not in self._schemas or item_id_ not in self.engine:
                continue
            item = self.engine.get(item_id_)
            dropped = item.state is ItemState.DROPPED
            server = server_of(name) or ""
            if not dropped and server in self.choices.servers:
                self.choices.set_server(server, False)
                touched = True
            touched |= self.choices.set_tool(name, dropped)
        if touched:
            self._sync()
            self._publish()

    # -- items -----------------------------------------------------------------------------

    def _changed(self, message: str | None = None) -> None:
        """Servers changed: list their tools again, decide deferral, update the items."""
        self._schemas = {}
        for connection in self.connections.values():
            if connection.state != "ready":
                continue
            for tool in connection.tools:
                schema = schema_of(connection.name, tool)
                self._schemas.setdefault(schema.name, (connection, tool, schema))
        kept = [schema for name, (c, _t, schema) in self._schemas.items()
                if not self.choices.dropped(c.name, name)]
        total = sum(self._schema_tokens(schema) for schema in kept)
        self.deferred = total > self.settings.mcp.defer_share * self.engine.settings.limit
        self._sync()
        self._publish(message)

    def _schema_tokens(self, schema: ToolSchema) -> int:
        return self.engine.counter.count(tool_schema_text(schema)) + MESSAGE_OVERHEAD

    def _wanted_state(self, server: str, name: str) -> ItemState:
        if self.choices.dropped(server, name):
            return ItemState.DROPPED
        if self.deferred and name not in self.loaded:
            return ItemState.DEFERRED
        return ItemState.INCLUDED

    def _sync(self) -> None:
        """Make the engine's MCP items match the servers, the choices and the deferral."""
        wanted: dict[str, ContextItem] = {}
        for name, (connection, _tool, schema) in self._schemas.items():
            wanted[item_id(name)] = tool_item(schema, self._wanted_state(connection.name,
                                                                         name))
        if self.deferred:
            wanted[item_id(TOOL_SEARCH)] = tool_item(TOOL_SEARCH_SCHEMA, ItemState.INCLUDED)
        self._syncing = True
        try:
            with self.engine.batch(f"{REASON}: tools changed"):
                for item in list(self.engine):
                    if item.id.startswith("tool:") and item.id not in wanted and (
                            server_of(item.id) or item.id == item_id(TOOL_SEARCH)):
                        self.engine.remove(item.id, reason=f"{REASON}: server gone")
                for key, item in wanted.items():
                    current = self.engine.get(key) if key in self.engine else None
                    if current is None or current.content != item.content:
                        pinned = current.pinned if current is not None else False
                        self.engine.add(item.model_copy(update={"pinned": pinned}),
                                        reason=f"{REASON}: tool listed")
                    elif current.state != item.state or current.stub != item.stub:
                        self.engine.update(key, state=item.state, stub=item.stub,
                                           reason=f"{REASON}: tool {item.state.value}")
        finally:
            self._syncing = False

    # -- calls -----------------------------------------------------------------------------

    def handles(self, name: str) -> bool:
        return name == TOOL_SEARCH or server_of(name) is not None

    async def call(self, name: str, arguments: dict[str, object]) -> ToolResult:
        """Run an approved MCP tool call; every failure is an error result."""
        if name not in self._schemas:
            await self.wait_started()
        found = self._schemas.get(name)
        if found is None:
            server = server_of(name) or ""
            connection = self.connections.get(server)
            if connection is not None and connection.state != "ready":
                why = f": {connection.error}" if connection.error else ""
                raise ToolError(f"the MCP server {server} is {connection.state}{why}",
                                summary=f"{server} {connection.state}")
            raise ToolError(f"unknown tool {name!r}: no MCP server offers it",
                            summary=f"unknown tool {name}")
        connection, tool, _schema = found
        if self.choices.dropped(connection.name, name):
            raise ToolError(f"{name} was turned off by the user; do not call it",
                            summary=f"{name} is turned off")
        try:
            return await connection.call(tool.name, name, arguments)
        except (ServerUnavailable, CallFailed) as exc:
            raise ToolError(str(exc), summary=str(exc).split(";")[0][:100]) from None

    def search(self, arguments: dict[str, object]) -> ToolResult:
        """`tool_search`: load the schemas of the deferred tools asked for."""
        candidates = {name: schema for name, (c, _t, schema) in self._schemas.items()
                      if not self.choices.dropped(c.name, name)}
        chosen = matching_tools(candidates, arguments)
        if not chosen:
            return ToolResult(content="No MCP tool matches; the deferred tools are listed "
                              "under 'Deferred tools'.", summary="tool_search: nothing found")
        fresh = [name for name in chosen if name not in self.loaded]
        self.loaded.update(chosen)
        if fresh and self._record is not None:
            self._record(LOADED, {"tools": fresh})
        self._sync()
        self._publish()
        lines = [f"- {name}: {candidates[name].description.strip()[:200]}" for name in chosen]
        return ToolResult(content=f"Loaded {len(chosen)} tool(s); call them directly from "
                          "now on:\n" + "\n".join(lines),
                          summary=f"loaded {len(fresh)} tool(s): {', '.join(chosen)[:80]}")

    # -- what the user sees ----------------------------------------------------------------

    def statuses(self) -> list[ServerStatus]:
        found: list[ServerStatus] = []
        for connection in self.connections.values():
            tools = []
            for tool in connection.tools if connection.state == "ready" else []:
                name = schema_of(connection.name, tool).name
                tools.append(self._tool_status(connection, tool, name))
            config = connection.config
            log_file = connection.stderr.file
            found.append(ServerStatus(
                name=config.name, origin=config.origin, transport=config.transport,
                target=config.target, state=connection.state, error=connection.error,
                dropped=config.name in self.choices.servers, tools=tuple(tools),
                log_file=str(log_file) if log_file else None))
        for problem in self.configured.problems:
            found.append(ServerStatus(name=problem.name, origin=problem.origin,
                                      transport="?", target="", state="not started",
                                      error=problem.message))
        return found

    def _tool_status(self, connection: ServerConnection, tool: Tool, name: str) -> ToolStatus:
        key = item_id(name)
        item = self.engine.get(key) if key in self.engine else None
        state: ToolState = "sent"
        if item is None or item.state is ItemState.DROPPED:
            state = "dropped"
        elif item.state is ItemState.DEFERRED:
            state = "deferred"
        elif self.deferred:
            state = "loaded"
        schema = schema_of(connection.name, tool)
        return ToolStatus(name=name, tool=tool.name, description=schema.description,
                          tokens=item.tokens if item else self._schema_tokens(schema),
                          sent_tokens=self.engine.sent_tokens(key), state=state)

    def log_tail(self, name: str, lines: int = 200) -> list[str]:
        """The server's last stderr lines (redacted)."""
        return self._connection(name).stderr.tail(lines)

    def _publish(self, message: str | None = None) -> None:
        self.engine.bus.publish(McpServersChanged(servers=tuple(self.statuses()),
                                                  deferred=self.deferred, message=message))
