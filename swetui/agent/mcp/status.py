"""What the user is shown about MCP servers: each server's state, tools and token costs
(`swetui mcp`, the gauge, the inspector, `swetui context --json`), and the event published
when any of it changes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from swetui.agent.mcp.catalog import ToolStatus


class ServerStatus(BaseModel):
    """One configured server."""

    model_config = ConfigDict(frozen=True)

    name: str
    origin: str
    """`user` (swetui's config) or `workspace` (`.mcp.json`)."""
    transport: str
    target: str
    """The command or URL (secrets redacted)."""
    state: str
    """starting, ready, failed, crashed, stopped, disabled, or `not started` (a problem)."""
    error: str | None = None
    dropped: bool = False
    """The user dropped the whole server from the context."""
    tools: tuple[ToolStatus, ...] = ()
    log_file: str | None = None

    @property
    def tokens(self) -> int:
        """Tokens of all its tools' full schemas."""
        return sum(tool.tokens for tool in self.tools)

    @property
    def sent_tokens(self) -> int:
        """Tokens its tools cost in the next request."""
        return sum(tool.sent_tokens for tool in self.tools)


class McpServersChanged(BaseModel):
    """A server started, failed, crashed or stopped, or its tools' states changed."""

    model_config = ConfigDict(frozen=True)

    servers: tuple[ServerStatus, ...]
    deferred: bool
    """Tool schemas are deferred (past `mcp.defer_share` of the window)."""
    message: str | None = None
    """Something the user should be told (a server failed to start, crashed)."""
