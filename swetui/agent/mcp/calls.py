"""An MCP tool call as a pending action: the approval queue shows the tool and its
arguments (which the user can edit before approving, as a JSON object), and rules can name a
tool or a server (`mcp__github__*`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from swetui.agent.events import Decision, PendingAction
from swetui.agent.tools.base import ToolError, ToolResult
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


def shown_arguments(call: ToolCall) -> str:
    """The arguments as the user reads and edits them."""
    return json.dumps(call.arguments, ensure_ascii=False, indent=2, sort_keys=True)


def edited_arguments(text: str) -> dict[str, object]:
    """The arguments the user wrote in place of the model's; raises ValueError with a
    message to show when they are not a JSON object."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the arguments are not valid JSON ({exc.msg}, line {exc.lineno} "
                         f"column {exc.colno}); nothing was approved") from None
    if not isinstance(value, dict):
        raise ValueError("the arguments must be a JSON object ({...}); nothing was approved")
    return value


def arguments_note(original: dict[str, object], used: dict[str, object]) -> str | None:
    """What the model is told when the user changed its arguments (None: unchanged)."""
    if used == original:
        return None
    return ("The user changed the arguments before the call; it ran with: "
            + json.dumps(used, ensure_ascii=False, sort_keys=True))


async def approved_call(call: Callable[[str, dict[str, object]], Awaitable[ToolResult]],
                        action: PendingAction, decision: Decision) -> ToolResult:
    """Run an approved MCP call with the user's arguments if they edited them, telling the
    model what was changed."""
    original = dict(action.call.arguments)
    arguments = original if decision.edited is None else edited_arguments(decision.edited)
    note = arguments_note(original, arguments)
    try:
        result = await call(action.call.name, arguments)
    except ToolError as exc:
        if note is None:
            raise
        raise ToolError(f"{note}\n{exc.message}", summary=exc.summary) from None
    if note is None:
        return result
    return result.model_copy(update={"content": f"{note}\n{result.content}"})
