"""`/mcp`: the MCP servers in the transcript — their state, tools and token costs — and what
the user can do with one: restart it, drop its tools from the context or restore them, read
its stderr log. The palette offers the same per server."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from swetui.agent import (
    Session,
)
from swetui.text import one_line

USAGE = "use /mcp, or /mcp restart|drop|restore|log NAME"
STATE_STYLES = {"ready": "green", "starting": "yellow", "failed": "bold red",
                "crashed": "bold red", "not started": "red"}


def servers_table(session: Session) -> Table | None:
    """One row per server: state, tools and tokens (sent / full schemas)."""
    statuses = session.mcp_servers()
    if not statuses:
        return None
    table = Table(title="MCP servers", title_justify="left", box=None, padding=(0, 1))
    for column in ("server", "state", "tools", "sent", "full", "from"):
        table.add_column(column, justify="right" if column in ("tools", "sent", "full")
                         else "left")
    for status in statuses:
        deferred = sum(1 for tool in status.tools if tool.state == "deferred")
        dropped = sum(1 for tool in status.tools if tool.state == "dropped")
        tools = f"{len(status.tools)}" + (f" ({deferred} deferred)" if deferred else "") + \
            (f" ({dropped} dropped)" if dropped else "")
        state = status.state + (" · dropped" if status.dropped else "")
        table.add_row(Text(one_line(status.name)),
                      Text(state, style=STATE_STYLES.get(status.state, "")), tools,
                      f"{status.sent_tokens:,}", f"{status.tokens:,}", status.origin)
        if status.error:
            table.add_row("", Text(one_line(status.error), style="red"), "", "", "", "")
    return table


async def run_mcp(session: Session, argument: str,
                  say: Callable[[RenderableType], None]) -> None:
    """Carry out `/mcp ARGUMENT`; raises ValueError with a message to show."""
    words = argument.split()
    if not words:
        table = servers_table(session)
        if table is None:
            say("No MCP servers configured (.mcp.json in the workspace, once trusted, or "
                "[mcp.servers.NAME] in swetui's config).")
            return
        say(table)
        say(Text("Drop or restore a tool in the inspector (F4, system layer); /mcp drop NAME "
                 "drops a whole server, /mcp restart NAME restarts one, /mcp log NAME shows "
                 "its stderr.", style="dim"))
        return
    if len(words) != 2:
        raise ValueError(USAGE)
    verb, name = words
    if verb == "restart":
        say(Text(f"Restarting {one_line(name)}…", style="dim"))
        say(await session.restart_mcp_server(name))
    elif verb in ("drop", "restore"):
        say(session.set_mcp_server_dropped(name, verb == "drop"))
    elif verb == "log":
        lines = session.mcp_log(name)
        body = "\n".join(lines[-60:]) if lines else "(nothing on stderr yet)"
        say(Text(f"stderr of {name} (last lines, secrets redacted)\n", style="bold") +
            Text(body))
    else:
        raise ValueError(USAGE)
