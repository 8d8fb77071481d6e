"""The prompt that teaches a model with no native tool calling how to call tools, as a
context item of the system layer: what is sent is what the inspector and the request view
show, and its tokens count like every other part of the request.

It exists while the model's `tool_calls` mode is `text` or `json` and the request offers
tools, and follows the offered tools (an MCP server's tools loaded or dropped). The
provider then adds nothing of its own (`teaches_tools`)."""

from __future__ import annotations

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer
from swetui.providers.base import Provider, TextToolCalls
from swetui.providers.text_calls import json_tools_prompt, text_tools_prompt

TOOL_FORMAT_ID = "system:tool-format"


def sync_tool_format(engine: ContextEngine, provider: Provider) -> None:
    """Add, refresh or remove the tool-format item for the model's mode and tools."""
    mode = provider.tool_calls if isinstance(provider, TextToolCalls) else "native"
    # The tools the next request carries, exactly as the assembler picks them.
    tools = engine.assemble().request.tools if mode in ("text", "json") else ()
    present = TOOL_FORMAT_ID in engine
    if not tools:
        if present:
            engine.remove(TOOL_FORMAT_ID, reason="the model calls tools natively")
        return
    assert isinstance(provider, TextToolCalls)
    provider.teaches_tools = False  # the item teaches them, visibly
    content = (json_tools_prompt if mode == "json" else text_tools_prompt)(tools)
    title = f"Tool-call format ({mode} mode)"
    if not present:
        engine.add(ContextItem(id=TOOL_FORMAT_ID, kind=ItemKind.SYSTEM_PROMPT,
                               layer=Layer.SYSTEM, title=title, content=content),
                   reason=f"the model calls tools in {mode} mode")
    elif engine.get(TOOL_FORMAT_ID).content != content:
        engine.update(TOOL_FORMAT_ID, content=content, title=title,
                      reason="the offered tools changed")
