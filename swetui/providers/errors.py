"""Configuration errors and the one-line messages built from failed HTTP answers."""

from __future__ import annotations

import json
from typing import Any


class ProviderConfigError(Exception):
    """A model cannot be used as configured (unknown provider, no model name, missing key).

    The message is one line, fit to show the user as is.
    """


def error_detail(body: bytes | str) -> str:
    """The provider's own explanation from an error body, or '' when it has none.

    Understands the OpenAI (`{"error": {"message": ...}}`), Anthropic
    (`{"type": "error", "error": {"type": ..., "message": ...}}`) and Ollama
    (`{"error": "..."}`) shapes, and falls back to the first line of a short text body.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = text.strip()
    if not text:
        return ""
    try:
        data = json.loads(text)
    except ValueError:
        # HTML error pages from proxies say nothing useful in their first line.
        if text.lstrip().startswith("<"):
            return ""
        return one_line(text)
    return one_line(_detail_from_json(data))


def _detail_from_json(data: Any) -> str:
    if isinstance(data, dict):
        for key in ("error", "detail", "message"):
            value = data.get(key)
            if isinstance(value, str) and value:
                return value
            if isinstance(value, dict):
                inner = _detail_from_json(value)
                if inner:
                    return inner
            if isinstance(value, list) and value:
                inner = _detail_from_json(value[0])
                if inner:
                    return inner
        kind = data.get("type")
        if isinstance(kind, str) and kind not in ("error", ""):
            return kind
        return ""
    if isinstance(data, str):
        return data
    return ""


def one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace to one line and cut it, so messages stay fit for a status line."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """Replace every secret (an API key) in `text` by `***`; servers sometimes echo keys."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text
