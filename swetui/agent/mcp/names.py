"""MCP tool names as the model sees them: `mcp__<server>__<tool>` (the convention other agents
use), and the ids of their context items (`tool:mcp__<server>__<tool>`)."""

from __future__ import annotations

import re

PREFIX = "mcp__"
SEPARATOR = "__"
ITEM_PREFIX = "tool:"
TOOL_SEARCH = "tool_search"
"""The tool that loads deferred MCP tools' schemas."""
SERVER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$")
"""A server name: letters, digits, `-` and single `_` (a double one would make
`mcp__a__b__c` ambiguous)."""
UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
"""Providers refuse longer tool names."""


def valid_server_name(name: str) -> bool:
    return bool(SERVER_NAME.match(name)) and len(name) <= 32


def tool_name(server: str, tool: str) -> str:
    """The name the model calls a server's tool by (unsafe characters become `_`)."""
    return f"{PREFIX}{server}{SEPARATOR}{UNSAFE.sub('_', tool)}"[:MAX_NAME]


def item_id(name: str) -> str:
    """The context item id of a tool named `name`."""
    return f"{ITEM_PREFIX}{name}"


def server_of(name: str) -> str | None:
    """The server of an MCP tool name or item id, None for any other tool."""
    if name.startswith(ITEM_PREFIX):
        name = name[len(ITEM_PREFIX):]
    if not name.startswith(PREFIX):
        return None
    server, separator, _tool = name[len(PREFIX):].partition(SEPARATOR)
    return server if separator and server else None


def is_mcp_tool(name: str) -> bool:
    return server_of(name) is not None
