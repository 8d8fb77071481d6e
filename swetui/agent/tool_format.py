"""The rules that teach a model with no native tool calling how to call tools, as a context
item of the system layer: what is sent is what the inspector and the request view show, and
its tokens count like every other part of the request.

It exists while the model's `tool_calls` mode is `text` or `json` and the request offers
tools. The tools themselves stay their own items (the provider writes their list into the
system message, the wire form of `tools` for such a model); the provider then adds no rules
of its own (`teaches_tools`)."""

from __future__ import annotations

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer
from swetui.providers.base import Provider, TextToolCalls
from swetui.providers.text_calls import tool_rules

TOOL_FORMAT_ID = "system:tool-format"


def sync_tool_format(engine: ContextEngine, provider: Provider) -> None:
    """Add, refresh or remove the tool-format item for the model's mode and tools."""
    mode = provider.tool_calls if isinstance(provider, TextToolCalls) else "native"
    # Whether the next request offers tools, exactly as the assembler decides it.
    taught = mode in ("text", "json") and bool(engine.assemble().request.tools)
    present = TOOL_FORMAT_ID in engine
    if not taught:
        if present:
            engine.remove(TOOL_FORMAT_ID, reason="the model is offered no tools in text")
        return
    assert isinstance(provider, TextToolCalls)
    provider.teaches_tools = False  # the item teaches them, visibly
    content = tool_rules(json_answers=mode == "json")
    title = f"Tool-call format ({mode} mode)"
    if not present:
        engine.add(ContextItem(id=TOOL_FORMAT_ID, kind=ItemKind.SYSTEM_PROMPT,
                               layer=Layer.SYSTEM, title=title, content=content),
                   reason=f"the model calls tools in {mode} mode")
    elif engine.get(TOOL_FORMAT_ID).content != content:
        engine.update(TOOL_FORMAT_ID, content=content, title=title,
                      reason="the model's tool-call mode changed")
