"""An MCP server for the benchmarks (the SDK's low-level server over stdio) offering COUNT
tools shaped like a real service's (GitHub, Jira, a database): several typed parameters,
each described, and a paragraph of description per tool.

    python bench/mcp_tool_server.py NAME COUNT
"""

from __future__ import annotations

import sys

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

VERBS = ("list", "get", "create", "update", "delete", "search", "merge", "close", "assign",
         "comment")
NOUNS = ("issue", "pull_request", "branch", "release", "workflow", "label", "milestone",
         "project", "discussion", "webhook")


def make_tool(service: str, number: int) -> types.Tool:
    verb, noun = VERBS[number % len(VERBS)], NOUNS[(number // len(VERBS)) % len(NOUNS)]
    name = f"{verb}_{noun}_{number}"
    properties = {
        "owner": {"type": "string", "description": f"The account that owns the {service} "
                  "repository or project; a user or an organisation login."},
        "repo": {"type": "string", "description": "The repository's name, without the owner."},
        "query": {"type": "string", "description": f"Free text to {verb} {noun}s by: words in "
                  "the title or body, or qualifiers such as state:open or author:login."},
        "state": {"type": "string", "enum": ["open", "closed", "all"],
                  "description": "Only items in this state (default: open)."},
        "labels": {"type": "array", "items": {"type": "string"},
                   "description": "Only items carrying every one of these labels."},
        "per_page": {"type": "integer", "minimum": 1, "maximum": 100,
                     "description": "Results per page (1 to 100, default 30)."},
        "page": {"type": "integer", "minimum": 1, "description": "Page number of the results."},
    }
    description = (f"{verb.capitalize()} {noun.replace('_', ' ')}s in {service}. Use this when "
                   f"the user asks to {verb} a {noun.replace('_', ' ')} or needs its details; "
                   "results include ids, titles, states, authors, timestamps and links, and "
                   "can be paged. Requires read access to the repository; write operations "
                   "need a token with the matching scope.")
    return types.Tool(name=name, description=description,
                      inputSchema={"type": "object", "properties": properties,
                                   "required": ["owner", "repo"]})


def main(service: str, count: int) -> None:
    server: Server = Server(service)
    tools = [make_tool(service, number) for number in range(count)]

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return tools

    @server.call_tool()
    async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
        return [types.TextContent(type="text", text=f"{name}: ok")]

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
