"""Decoding a tool call's streamed JSON arguments, shared by every wire protocol."""

from __future__ import annotations

import json
from typing import Any


def decode_tool_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """`(arguments, None)` for a JSON object (an empty string means no arguments), else
    `(None, reason)` so the agent can tell the model its call was malformed."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return None, f"tool arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"tool arguments must be a JSON object, got {type(value).__name__}"
    return value, None
