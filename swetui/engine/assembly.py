"""Deterministic assembly: items in, the exact provider-neutral request out.

A pipeline of processors runs in priority order (system, memory, summary, history, task,
pinned, budget enforcement, provider formatting). Each records what it did; one that fails is
reported in the result and skipped, never breaking the send. Token attribution reuses the
per-item counts the engine keeps, so assembly never re-encodes text.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from swetui.engine.items import LAYER_ORDER, ContextItem, ItemKind, ItemState, Layer
from swetui.messages import ChatRequest, Message, Role, ToolCall, ToolSchema

MessageKey = tuple[Hashable, ...]
"""What a built message is made of: its role, item id, text, and the forms of its calls."""
MessageCache = dict[MessageKey, Message]

log = logging.getLogger(__name__)

CONVERSATION_KINDS = frozenset({ItemKind.USER_MESSAGE, ItemKind.ASSISTANT_MESSAGE,
                                ItemKind.TOOL_CALL})
PLACED_AT_HOME = frozenset({Layer.SYSTEM, Layer.MEMORY, Layer.SUMMARY})
"""Layers whose items stay in place when pinned (a pinned tool is still a tool, a pinned
system prompt still the system prompt); their tokens still count as pinned."""


class ProcessorRecord(BaseModel):
    """What one processor did."""

    model_config = ConfigDict(frozen=True)

    name: str
    priority: int
    ok: bool
    note: str = ""
    error: str | None = None
    items: int = 0


class AssemblyResult(BaseModel):
    """The assembled request and how it was made: the same object the inspector shows."""

    model_config = ConfigDict(frozen=True)

    request: ChatRequest
    chain: tuple[ProcessorRecord, ...]
    item_tokens: dict[str, int]
    layer_tokens: dict[Layer, int]
    total: int
    trimmed: tuple[str, ...] = ()
    """Items left out by budget enforcement because the window was full."""

    @property
    def failed(self) -> list[ProcessorRecord]:
        return [record for record in self.chain if not record.ok]


@dataclass
class AssemblyState:
    """What the processors build up, step by step."""

    items: list[ContextItem]
    limit: int
    reserve: int
    costs: Mapping[str, int]
    """Tokens each item costs in the form it is sent (kept up to date by the engine)."""
    model: str = ""
    max_tokens: int = 8192
    system_sections: list[str] = field(default_factory=list)
    tools: list[ToolSchema] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    turns: dict[int, list[ContextItem]] = field(default_factory=dict)
    context_blocks: list[str] = field(default_factory=list)
    used: dict[str, ContextItem] = field(default_factory=dict)
    trimmed: list[str] = field(default_factory=list)
    request: ChatRequest | None = None
    by_layer: dict[Layer, list[ContextItem]] = field(default_factory=dict)
    cache: MessageCache = field(default_factory=dict)
    """Messages built by earlier assemblies, by what they are made of (messages are
    immutable, so an unchanged item reuses its message instead of building it again)."""

    def __post_init__(self) -> None:
        # One pass over the items; every processor then reads only its own layer.
        for item in self.items:
            if item.sent:
                layer = item.layer if item.layer in PLACED_AT_HOME else item.effective_layer
                self.by_layer.setdefault(layer, []).append(item)

    def use(self, item: ContextItem) -> None:
        self.used[item.id] = item

    def of(self, layer: Layer, kinds: Iterable[ItemKind] | None = None) -> list[ContextItem]:
        items = self.by_layer.get(layer, [])
        if kinds is None:
            return list(items)
        wanted = frozenset(kinds)
        return [item for item in items if item.kind in wanted]


Processor = Callable[[AssemblyState], str]


def _section(title: str, body: str) -> str:
    return f"## {title}\n\n{body.rstrip()}"


DEFERRED_TITLE = "Deferred tools (load with tool_search)"


def process_system(state: AssemblyState) -> str:
    deferred: list[str] = []
    for item in state.of(Layer.SYSTEM):
        if item.kind is ItemKind.TOOL_SCHEMA and item.state is ItemState.DEFERRED \
                and not item.pinned:
            deferred.append(item.sent_text().rstrip())  # its name and one line
        elif item.kind is ItemKind.TOOL_SCHEMA:
            state.tools.append(ToolSchema.model_validate_json(item.sent_text()))
        else:
            state.system_sections.append(item.sent_text().rstrip())
        state.use(item)
    if deferred:
        state.system_sections.append(_section(DEFERRED_TITLE, "\n".join(deferred)))
    return f"{len(state.tools)} tools" + (f", {len(deferred)} deferred" if deferred else "")


def process_memory(state: AssemblyState) -> str:
    items = state.of(Layer.MEMORY)
    for item in items:
        state.system_sections.append(_section(item.title, item.sent_text()))
        state.use(item)
    return f"{len(items)} memory items"


def process_summary(state: AssemblyState) -> str:
    items = state.of(Layer.SUMMARY)
    for item in items:
        state.system_sections.append(_section("Session summary", item.sent_text()))
        state.use(item)
    return f"{len(items)} summaries"


def process_history(state: AssemblyState) -> str:
    digests = state.of(Layer.HISTORY, [ItemKind.EXCHANGE_DIGEST])
    for item in digests:
        state.digests.append(item.sent_text())
        state.use(item)
    conversation = state.of(Layer.HISTORY, CONVERSATION_KINDS)
    for item in conversation:
        state.turns.setdefault(item.turn_created, []).append(item)
        state.use(item)
    return f"{len(conversation)} messages in {len(state.turns)} turns, {len(digests)} digests"


def _attribute(value: str) -> str:
    """A value that stays one well-formed attribute (`grep "X"`, a path with a quote)."""
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;") \
        .replace("\n", " ")


def _context_block(item: ContextItem) -> str:
    where = _attribute(item.source.path or item.title)
    return f'<context id="{_attribute(item.id)}" kind="{item.kind.value}" source="{where}">\n' \
           f"{item.sent_text().rstrip()}\n</context>"


def process_task(state: AssemblyState) -> str:
    items = [item for item in state.of(Layer.TASK) if item.kind not in CONVERSATION_KINDS]
    for item in items:
        state.context_blocks.append(_context_block(item))
        state.use(item)
    return f"{len(items)} retrieved items"


def process_pinned(state: AssemblyState) -> str:
    items = state.of(Layer.PINNED)
    for item in items:
        if item.kind in CONVERSATION_KINDS and item.layer is Layer.HISTORY:
            state.turns.setdefault(item.turn_created, []).append(item)
        else:
            state.context_blocks.append(_context_block(item))
        state.use(item)
    if any(item.kind in CONVERSATION_KINDS for item in items):
        order = {item.id: position for position, item in enumerate(state.items)}
        for turn in state.turns.values():  # pinned messages rejoin their turn in order
            turn.sort(key=lambda entry: order[entry.id])
    return f"{len(items)} pinned items"


def process_budget(state: AssemblyState) -> str:
    """Leave out the oldest unpinned conversation turns while the request overflows."""
    room = state.limit - state.reserve
    total = sum(state.costs[item_id] for item_id in state.used)
    if total <= room:
        return f"fits: {total:,} of {room:,} tokens"
    current = max(state.turns) if state.turns else None
    for turn in sorted(state.turns):
        if total <= room or turn == current:
            break
        keep = [item for item in state.turns[turn] if item.pinned]
        for item in state.turns[turn]:
            if not item.pinned:
                total -= state.costs[item.id]
                state.used.pop(item.id, None)
                state.trimmed.append(item.id)
        state.turns[turn] = keep
    return f"trimmed {len(state.trimmed)} items to {total:,} tokens"


def _message(role: Role, content: str, *, tool_calls: tuple[ToolCall, ...] = (),
             tool_call_id: str | None = None, name: str | None = None,
             is_error: bool = False) -> Message:
    return Message(role=role, content=content, tool_calls=tool_calls,
                   tool_call_id=tool_call_id, name=name, is_error=is_error)


def _turn_messages(items: list[ContextItem], cache: MessageCache) -> list[Message]:
    """A turn's messages. Every tool item sent is paired with a call: through its assistant
    message, or, when that message is not sent (dropped or folded), through a bare
    assistant message carrying just the calls, so what is counted is what is sent."""
    calls = {call_id: item for item in items
             if item.kind is ItemKind.TOOL_CALL and (call_id := item.source.tool_call_id)}
    claimed = {call_id for item in items if item.kind is ItemKind.ASSISTANT_MESSAGE
               for call_id in item.call_ids if call_id in calls}
    messages: list[Message] = []
    orphans: list[ContextItem] = []
    for item in items:
        if item.kind is ItemKind.USER_MESSAGE:
            text = item.sent_text()
            key: MessageKey = ("user", item.id, text)
            message = cache.get(key)
            if message is None:
                message = cache[key] = _message("user", text)
            messages.append(message)
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
                    calls: dict[str, ContextItem], cache: MessageCache) -> list[Message]:
    # A call's sent arguments depend only on its item's state and pin (its arguments never
    # change), so those stand in for them in the key.
    forms = tuple((calls[call_id].state, calls[call_id].pinned) for call_id in ids)
    key: MessageKey = ("assistant", key_id, text, ids, forms)
    message = cache.get(key)
    if message is None:
        tool_calls = tuple(ToolCall(id=call_id, name=calls[call_id].call.name,
                                    arguments=calls[call_id].sent_arguments())
                           for call_id in ids)
        message = cache[key] = _message("assistant", text, tool_calls=tool_calls)
    out = [message]
    for call_id in ids:
        call = calls[call_id]
        content = call.sent_text()
        key = ("tool", call.id, content, call_id)
        message = cache.get(key)
        if message is None:
            message = cache[key] = _message("tool", content, tool_call_id=call_id,
                                            name=call.call.name or None,
                                            is_error=call.call.is_error)
        out.append(message)
    return out


def process_format(state: AssemblyState) -> str:
    messages: list[Message] = []
    if state.digests:
        messages.append(_message("user", "Earlier in this session (recall any exchange by "
                                 "id):\n" + "\n".join(state.digests)))
        messages.append(_message("assistant", "Noted."))
    for turn in sorted(state.turns):
        messages.extend(_turn_messages(state.turns[turn], state.cache))
    if state.context_blocks:
        block = "\n\n".join(state.context_blocks)
        last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
        if last_user is None:
            messages.append(_message("user", block))
        else:
            original = messages[last_user]
            messages[last_user] = _message("user", f"{block}\n\n{original.content}")
    state.request = ChatRequest(model=state.model, system="\n\n".join(state.system_sections),
                                messages=tuple(messages), tools=tuple(state.tools),
                                max_tokens=state.max_tokens)
    return f"{len(messages)} messages, {len(state.tools)} tools"


PIPELINE: tuple[tuple[str, int, Processor], ...] = (
    ("system", 0, process_system),
    ("memory", 10, process_memory),
    ("summary", 20, process_summary),
    ("history", 30, process_history),
    ("task", 40, process_task),
    ("pinned", 50, process_pinned),
    ("budget", 60, process_budget),
    ("format", 70, process_format),
)


def assemble(items: Iterable[ContextItem], *, limit: int, reserve: int,
             costs: Mapping[str, int] | None = None, model: str = "", max_tokens: int = 8192,
             pipeline: Iterable[tuple[str, int, Processor]] = PIPELINE,
             cache: MessageCache | None = None) -> AssemblyResult:
    """Run the processors in priority order over `items` (in engine order). `costs` gives
    each item's sent-form tokens (default: `item.tokens`); `cache` keeps built messages
    between calls."""
    items = list(items)
    if costs is None:
        costs = {item.id: item.tokens for item in items}
    state = AssemblyState(items=items, limit=limit, reserve=reserve, costs=costs, model=model,
                          max_tokens=max_tokens, cache=cache if cache is not None else {})
    chain = []
    for name, priority, processor in sorted(pipeline, key=lambda entry: entry[1]):
        before = len(state.used)
        try:
            note = processor(state)
            chain.append(ProcessorRecord(name=name, priority=priority, ok=True, note=note,
                                         items=len(state.used) - before))
        except Exception as exc:  # reported in the result, never breaks the send
            log.warning("processor %s failed: %s", name, exc, exc_info=True)
            chain.append(ProcessorRecord(name=name, priority=priority, ok=False,
                                         error=f"{type(exc).__name__}: {exc}"))
    if state.request is None:  # the formatter itself failed: send what we can, plainly
        state.request = ChatRequest(model=model, system="\n\n".join(state.system_sections))
    item_tokens = {item_id: costs[item_id] for item_id in state.used}
    layer_tokens = dict.fromkeys(LAYER_ORDER, 0)
    for item in state.used.values():
        layer_tokens[item.effective_layer] += costs[item.id]
    layer_tokens.pop(Layer.RESERVE)
    return AssemblyResult(request=state.request, chain=tuple(chain), item_tokens=item_tokens,
                          layer_tokens=layer_tokens, total=sum(item_tokens.values()),
                          trimmed=tuple(state.trimmed))


def tool_schema_text(schema: ToolSchema) -> str:
    """The canonical text of a tool schema item (what its tokens are counted on)."""
    return json.dumps(schema.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
