"""An MCP tool's answer as the model and the user see it: text blocks as they are, images,
audio and binary resources as a placeholder with their type and size, embedded text
resources as their text, and the whole capped like every other tool's output."""

from __future__ import annotations

import base64
import json

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from swetui.agent.tools.base import ToolResult
from swetui.agent.tools.shell import OUTPUT_CAP


def _size(data: str) -> str:
    """The decoded size of base64 `data`, for a placeholder."""
    try:
        size = len(base64.b64decode(data, validate=False))
    except (ValueError, TypeError):
        size = len(data) * 3 // 4
    return f"{size:,} bytes"


def block_text(block: object) -> str:
    """One content block as text."""
    match block:
        case TextContent(text=text):
            return text
        case ImageContent(mimeType=mime, data=data):
            return f"[image {mime}, {_size(data)}: not shown to the model]"
        case AudioContent(mimeType=mime, data=data):
            return f"[audio {mime}, {_size(data)}: not shown to the model]"
        case ResourceLink(uri=uri, name=name, mimeType=mime):
            return f"[resource link {name}: {uri}{f' ({mime})' if mime else ''}]"
        case EmbeddedResource(resource=TextResourceContents(uri=uri, text=text)):
            return f"[resource {uri}]\n{text}"
        case EmbeddedResource(resource=BlobResourceContents(uri=uri, blob=blob, mimeType=mime)):
            return f"[resource {uri} ({mime or 'binary'}), {_size(blob)}: not shown]"
    return f"[{type(block).__name__} content: not shown]"


def cap(text: str, limit: int = OUTPUT_CAP) -> tuple[str, int]:
    """`text` cut to `limit` characters (the first two thirds and the last third kept) and
    how many characters were cut."""
    if len(text) <= limit:
        return text, 0
    head = limit * 2 // 3
    tail = limit - head
    dropped = len(text) - head - tail
    return (f"{text[:head]}\n[… {dropped:,} characters of the result cut …]\n"
            f"{text[-tail:]}", dropped)


def tool_result(name: str, result: CallToolResult, limit: int = OUTPUT_CAP) -> ToolResult:
    """The model's view of `result` from the tool `name`."""
    parts = [block_text(block) for block in result.content]
    if not parts and result.structuredContent is not None:
        parts.append(json.dumps(result.structuredContent, ensure_ascii=False, indent=1))
    text = "\n".join(parts) if parts else "(the tool returned nothing)"
    total = len(text)
    text, dropped = cap(text, limit)
    if dropped:
        text += (f"\n[result cut: {total:,} characters in all; the middle {dropped:,} are not "
                 "shown]")
    kinds = sorted({type(block).__name__.removesuffix("Content") for block in result.content})
    size = f"{total:,} chars" + (f", cut to {limit:,}" if dropped else "")
    summary = f"{'error' if result.isError else 'ok'} · {size}"
    if kinds and kinds != ["Text"]:
        summary += f" · {', '.join(kinds)}"
    return ToolResult(content=text, is_error=bool(result.isError), summary=summary,
                      data={"mcp_chars": total, "mcp_cut": dropped})
