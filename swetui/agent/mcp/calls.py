"""An MCP tool call as a pending action: the approval queue shows the tool and its
arguments, and rules can name a tool or a server (`mcp__github__*`)."""

from __future__ import annotations

import json
from pathlib import Path

from swetui.agent.events import PendingAction
from swetui.agent.tools.base import ToolError
from swetui.messages import ToolCall

PREVIEW_ARGUMENTS = 60


def mcp_action(call: ToolCall, root: Path) -> PendingAction:
    """The pending action of an MCP tool call (raises ToolError for bad arguments)."""
    if not isinstance(call.arguments, dict):
        raise ToolError(f"{call.name}: the arguments must be a JSON object",
                        summary=f"{call.name}: malformed arguments")
    arguments = json.dumps(call.arguments, ensure_ascii=False, indent=1, sort_keys=True)
    short = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    if len(short) > PREVIEW_ARGUMENTS:
        short = short[:PREVIEW_ARGUMENTS - 1] + "…"
    return PendingAction(call=call, kind="mcp", command=f"{call.name} {arguments}",
                         cwd=str(root), rule_hint=call.name,
                         summary=f"call {call.name} {short}")
