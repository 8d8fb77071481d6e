"""Known secret values out of what a tool returns (content, summary and data), and the check
that a restored action still carries a redaction label (`swetui.secrets`)."""

from __future__ import annotations

from swetui.agent.events import PendingAction
from swetui.agent.tools.base import ToolResult
from swetui.secrets import STORE, redact


def _redact_value(value: object) -> object:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redact_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(item) for item in value]
    return value


def redacted(result: ToolResult) -> ToolResult:
    """`result` with known secret values replaced by `[redacted: NAME]` in its content,
    summary and data: what the model, the screen and the logs get."""
    update = {"content": redact(result.content), "summary": redact(result.summary),
              "data": _redact_value(result.data)}
    if update == {"content": result.content, "summary": result.summary, "data": result.data}:
        return result
    return result.model_copy(update=update)


def carries_redaction(action: PendingAction) -> bool:
    """True when a restored action holds a redaction label of a secret known now."""
    labels = STORE.labels()
    if not labels:
        return False
    text = "\n".join(str(part) for part in (action.command, action.new_content,
                                             action.call.arguments))
    return any(label in text for label in labels)
