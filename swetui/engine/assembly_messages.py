"""The messages of the conversation, as assembly builds them: each turn's user message,
assistant messages with their tool calls, and tool results, built once and kept in a cache
by what they are made of (messages are immutable), each with the item it came from."""

from __future__ import annotations

from collections.abc import Hashable

from swetui.engine.items import ARGUMENT_KEEP, ContextItem, ItemKind, ItemState
from swetui.messages import Message, Role, ToolCall

MessageKey = tuple[Hashable, ...]
"""What a built message is made of: its role, item id, text, and the forms of its calls."""

MessageCache = dict[MessageKey, Message]


def message_of(role: Role, content: str, *, tool_calls: tuple[ToolCall, ...] = (),
             tool_call_id: str | None = None, name: str | None = None,
             is_error: bool = False) -> Message:
    return Message(role=role, content=content, tool_calls=tool_calls,
                   tool_call_id=tool_call_id, name=name, is_error=is_error)


Built = tuple[Message, MessageKey, str]
"""A message, what it is made of (its key in the message cache) and the item it came from."""


def turn_messages(items: list[ContextItem], cache: MessageCache) -> list[Built]:
    """A turn's messages. Every tool item sent is paired with a call: through its assistant
    message, or, when that message is not sent (dropped or folded), through a bare
    assistant message carrying just the calls, so what is counted is what is sent."""
    calls = {call_id: item for item in items
             if item.kind is ItemKind.TOOL_CALL and (call_id := item.source.tool_call_id)}
    claimed = {call_id for item in items if item.kind is ItemKind.ASSISTANT_MESSAGE
               for call_id in item.call_ids if call_id in calls}
    messages: list[Built] = []
    orphans: list[ContextItem] = []
    for item in items:
        if item.kind is ItemKind.USER_MESSAGE:
            text = item.sent_text()
            key: MessageKey = ("user", item.id, text)
            message = cache.get(key)
            if message is None:
                message = cache[key] = message_of("user", text)
            messages.append((message, key, item.id))
        elif item.kind is ItemKind.ASSISTANT_MESSAGE:
            ids = tuple(call_id for call_id in item.call_ids if call_id in calls)
            messages.extend(_assistant_turn(item.id, item.sent_text(), ids, calls, cache))
        elif item.kind is ItemKind.TOOL_CALL and item.source.tool_call_id not in claimed:
            orphans.append(item)
    if orphans:
        orphan_ids = {item.id for item in orphans}
        bare = tuple(call_id for call_id, call in calls.items() if call.id in orphan_ids)
        messages.extend(_assistant_turn(f"bare:{orphans[0].id}", "", bare, calls, cache))
    return messages


def _assistant_turn(key_id: str, text: str, ids: tuple[str, ...],
                    calls: dict[str, ContextItem], cache: MessageCache) -> list[Built]:
    # A call's sent arguments depend only on whether they are cut (its arguments never
    # change), so that stands in for them in the key: the key changes when the bytes do.
    forms = tuple(arguments_whole(calls[call_id]) for call_id in ids)
    key: MessageKey = ("assistant", key_id, text, ids, forms)
    message = cache.get(key)
    if message is None:
        tool_calls = tuple(ToolCall(id=call_id, name=calls[call_id].call.name,
                                    arguments=calls[call_id].sent_arguments())
                           for call_id in ids)
        message = cache[key] = message_of("assistant", text, tool_calls=tool_calls)
    owner = key_id if not key_id.startswith("bare:") else key_id[len("bare:"):]
    out: list[Built] = [(message, key, owner)]
    for call_id in ids:
        call = calls[call_id]
        content = call.sent_text()
        key = ("tool", call.id, content, call_id)
        message = cache.get(key)
        if message is None:
            message = cache[key] = message_of("tool", content, tool_call_id=call_id,
                                            name=call.call.name or None,
                                            is_error=call.call.is_error)
        out.append((message, key, call.id))
    return out


def arguments_whole(call: ContextItem) -> bool:
    """Whether a call's arguments are sent as they were made (not cut by a drop or fold)."""
    if call.pinned or call.state in (ItemState.INCLUDED, ItemState.STALE):
        return True
    arguments = call.call.arguments
    return not any(isinstance(value, str) and len(value) > 2 * ARGUMENT_KEEP
                   for value in arguments.values())
