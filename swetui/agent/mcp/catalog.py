"""MCP tools as context items: one item per tool in the system layer (`tool:mcp__s__t`),
whose content is its schema exactly as sent, so its tokens are the schema's cost; and the
`tool_search` tool that loads deferred ones."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from swetui.agent.mcp.names import TOOL_SEARCH, item_id, tool_name
from swetui.agent.tools.base import ToolError
from swetui.engine.assembly import tool_schema_text
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer
from swetui.messages import ToolSchema
from swetui.text import one_line

if TYPE_CHECKING:
    from mcp.types import Tool

ToolState = Literal["sent", "deferred", "loaded", "dropped"]
SEARCH_RESULTS = 5
"""Tools a `tool_search` query loads at most (exact names are all loaded)."""
DESCRIPTION_LINE = 100
"""Characters of a deferred tool's description the model sees."""

TOOL_SEARCH_SCHEMA = ToolSchema(
    name=TOOL_SEARCH,
    description=("Load MCP tools listed under 'Deferred tools' so you can call them: give "
                 "their exact names, or words to search their names and descriptions. "
                 "Loaded tools stay in your tool list for the rest of the session."),
    parameters={"type": "object", "additionalProperties": False, "properties": {
        "names": {"type": "array", "items": {"type": "string"},
                  "description": "Exact tool names, e.g. mcp__github__create_issue."},
        "query": {"type": "string", "description": "Words to search for."}}},
)


class ToolStatus(BaseModel):
    """One MCP tool, as `swetui mcp`, the gauge and the inspector show it."""

    model_config = ConfigDict(frozen=True)

    name: str
    tool: str
    """The server's own name for it."""
    description: str
    tokens: int
    """Tokens of its full schema."""
    sent_tokens: int
    """Tokens it costs in the next request as it is sent now (0 when dropped)."""
    state: ToolState


def schema_of(server: str, tool: Tool) -> ToolSchema:
    """The schema the model gets for a server's tool."""
    parameters = tool.inputSchema if isinstance(tool.inputSchema, dict) else {}
    return ToolSchema(name=tool_name(server, tool.name), description=tool.description or "",
                      parameters=parameters or {"type": "object", "properties": {}})


def description_line(description: str) -> str:
    """The first sentence or line of a description, short."""
    first = one_line(description.strip().split("\n", 1)[0]) if description.strip() else ""
    end = first.find(". ")
    if 0 < end < DESCRIPTION_LINE:
        first = first[:end + 1]
    return first if len(first) <= DESCRIPTION_LINE else first[:DESCRIPTION_LINE - 1] + "…"


def stub_of(schema: ToolSchema) -> str:
    """What a deferred tool sends: its name and one line."""
    line = description_line(schema.description)
    return f"- {schema.name}" + (f": {line}" if line else "")


def tool_item(schema: ToolSchema, state: ItemState, *, pinned: bool = False) -> ContextItem:
    return ContextItem(id=item_id(schema.name), kind=ItemKind.TOOL_SCHEMA, layer=Layer.SYSTEM,
                       title=schema.name, content=tool_schema_text(schema), state=state,
                       stub=stub_of(schema), pinned=pinned)


def matching_tools(candidates: dict[str, ToolSchema], arguments: dict[str, object]
                   ) -> list[str]:
    """The tools a `tool_search` call asks for: its exact `names`, then the best matches of
    its `query` words in names and descriptions; raises ToolError for bad arguments."""
    names = arguments.get("names") or []
    query = arguments.get("query") or ""
    if not isinstance(names, list) or not isinstance(query, str) or \
            not (names or query.strip()):
        raise ToolError("tool_search needs `names` (a list of tool names) or `query` "
                        "(words to search)", summary="tool_search: bad arguments")
    chosen = [str(n) for n in names if str(n) in candidates]
    if query.strip():
        words = [w for w in re.split(r"[^a-z0-9]+", query.lower()) if w]
        scored = []
        for name, schema in candidates.items():
            text = f"{name} {schema.description}".lower()
            score = sum(text.count(word) for word in words)
            if score and name not in chosen:
                scored.append((-score, name))
        chosen += [name for _score, name in sorted(scored)[:SEARCH_RESULTS]]
    return chosen
