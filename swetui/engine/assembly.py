"""Deterministic assembly: items in, the exact provider-neutral request out.

A pipeline of processors runs in priority order (system, memory, summary, history, task,
pinned, budget enforcement, provider formatting). Each records what it did; one that fails is
reported in the result and skipped, never breaking the send. Token attribution reuses the
per-item counts the engine keeps, so assembly never re-encodes text.
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from swetui.engine.assembly_messages import (
    Built,
    MessageCache,
    message_of,
    turn_messages,
)
from swetui.engine.cache import PrefixUnit
from swetui.engine.items import (
    LAYER_ORDER,
    ContextItem,
    ItemKind,
    ItemState,
    Layer,
)
from swetui.engine.payloads import HandoffPayload
from swetui.messages import CacheBreaks, ChatRequest, ToolSchema

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
    prefix: tuple[PrefixUnit, ...] = ()
    """The stable part of the request, piece by piece, in the order the provider reads it
    (what the cache view compares from one send to the next)."""
    breakpoints: tuple[int, ...] = ()
    """Prefix lengths, in `prefix` units, at the request's cache breakpoints."""

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
    tail_sections: list[str] = field(default_factory=list)
    """What changes between compactions (summary, session notes): sent after the newest
    message, so updating it never un-caches the history."""
    tool_units: list[PrefixUnit] = field(default_factory=list)
    system_units: list[PrefixUnit] = field(default_factory=list)
    system_marks: list[tuple[int, int]] = field(default_factory=list)
    """(characters of `system`, units of the prefix) at the end of each stable system block."""
    units: list[PrefixUnit] = field(default_factory=list)
    breakpoints: list[int] = field(default_factory=list)

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


def stable_key(parts: tuple[object, ...]) -> str:
    """A key for what a piece of the request is made of that is the same in every process
    (it is kept in the session log): short strings as they are, long ones by length and
    CRC-32 (fast: the whole request's text in about a millisecond)."""
    shown = []
    for part in parts:
        if isinstance(part, str) and len(part) > 64:
            shown.append(f"#{len(part)}:{zlib.crc32(part.encode('utf-8', 'surrogatepass')):08x}")
        else:
            shown.append(str(part))
    return "|".join(shown)


def _unit(state: AssemblyState, item: ContextItem, text: str) -> PrefixUnit:
    return PrefixUnit(stable_key((item.id, text)), state.costs[item.id], item.id)


def _mark_system(state: AssemblyState) -> None:
    units = len(state.tool_units) + len(state.system_units)
    chars = len("\n\n".join(state.system_sections))
    if units and (not state.system_marks or state.system_marks[-1][1] < units):
        state.system_marks.append((chars, units))


def process_system(state: AssemblyState) -> str:
    deferred: list[str] = []
    deferred_units: list[PrefixUnit] = []
    for item in state.of(Layer.SYSTEM):
        text = item.sent_text()
        if item.kind is ItemKind.TOOL_SCHEMA and item.state is ItemState.DEFERRED \
                and not item.pinned:
            deferred.append(text.rstrip())  # its name and one line
            deferred_units.append(_unit(state, item, text))
        elif item.kind is ItemKind.TOOL_SCHEMA:
            state.tools.append(ToolSchema.model_validate_json(text))
            state.tool_units.append(_unit(state, item, text))
        else:
            state.system_sections.append(text.rstrip())
            state.system_units.append(_unit(state, item, text))
        state.use(item)
    if deferred:
        state.system_sections.append(_section(DEFERRED_TITLE, "\n".join(deferred)))
        state.system_units.extend(deferred_units)
    _mark_system(state)
    return f"{len(state.tools)} tools" + (f", {len(deferred)} deferred" if deferred else "")


def process_memory(state: AssemblyState) -> str:
    """Memory files join the stable system prompt; session notes and the plan, updated
    during the session, go after the newest message."""
    items = state.of(Layer.MEMORY)
    for item in items:
        section = _section(item.title, item.sent_text())
        if item.kind in (ItemKind.SESSION_NOTES, ItemKind.PLAN):
            state.tail_sections.append(section)
        else:
            state.system_sections.append(section)
            state.system_units.append(_unit(state, item, section))
        state.use(item)
    _mark_system(state)
    return f"{len(items)} memory items"


def process_summary(state: AssemblyState) -> str:
    """The running summary changes between compactions: it goes after the newest message. A
    chunk's handoff is written once, at the chunk boundary: it joins the stable prefix."""
    items = state.of(Layer.SUMMARY)
    for item in items:
        section = _section("Session summary", item.sent_text())
        if isinstance(item.payload, HandoffPayload):
            state.system_sections.append(section)
            state.system_units.append(_unit(state, item, section))
        else:
            state.tail_sections.append(section)
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


def context_block(item: ContextItem) -> str:
    """The text a task or pinned item is sent as: its content inside a `<context>` element
    saying its id, kind and source (the retrieval benchmark counts exactly this). A
    shortlist has no source: its title (`likely places: ` and every name its lines list)
    would say its content again."""
    where = item.source.path or (None if item.kind is ItemKind.SHORTLIST else item.title)
    source = f' source="{_attribute(where)}"' if where is not None else ""
    return f'<context id="{_attribute(item.id)}" kind="{item.kind.value}"{source}>\n' \
           f"{item.sent_text().rstrip()}\n</context>"


def process_task(state: AssemblyState) -> str:
    items = [item for item in state.of(Layer.TASK) if item.kind not in CONVERSATION_KINDS]
    for item in items:
        state.context_blocks.append(context_block(item))
        state.use(item)
    return f"{len(items)} retrieved items"


def process_pinned(state: AssemblyState) -> str:
    items = state.of(Layer.PINNED)
    for item in items:
        if item.kind in CONVERSATION_KINDS and item.layer is Layer.HISTORY:
            state.turns.setdefault(item.turn_created, []).append(item)
        else:
            state.context_blocks.append(context_block(item))
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


def process_format(state: AssemblyState) -> str:
    """The request: stable system and history first, then what changes every turn (summary,
    notes, retrieved and pinned context) after the newest message, with the cache
    breakpoints at the stable boundaries."""
    built: list[Built] = []
    if state.digests:
        digests = "Earlier in this session (recall any exchange by id):\n" + \
            "\n".join(state.digests)
        owner = next(iter(state.of(Layer.HISTORY, [ItemKind.EXCHANGE_DIGEST]))).id
        built.append((message_of("user", digests), ("digests", digests), owner))
        built.append((message_of("assistant", "Noted."), ("digests", "Noted."), owner))
    current = max(state.turns) if state.turns else None
    earlier = len(built)
    for turn in sorted(state.turns):
        built.extend(turn_messages(state.turns[turn], state.cache))
        if turn != current:
            earlier = len(built)
    messages = tuple(message for message, _, _ in built)
    units = [*state.tool_units, *state.system_units]
    marks = [mark for _, mark in state.system_marks][-2:]
    counted: set[str] = set()
    for _, key, owner in built:
        # Each item's tokens are counted once, on the first message it makes.
        tokens = state.costs.get(owner, 0) if owner not in counted else 0
        counted.add(owner)
        units.append(PrefixUnit(stable_key(key), tokens, owner))
        if len(units) - len(state.tool_units) - len(state.system_units) == earlier:
            marks.append(len(units))
    message_marks = sorted({index for index in (earlier - 1, len(messages) - 1) if index >= 0})
    if message_marks:
        marks.append(len(units))
    state.units = units
    state.breakpoints = sorted(set(marks))
    tail = [*state.tail_sections, *state.context_blocks]
    state.request = ChatRequest(
        model=state.model, system="\n\n".join(state.system_sections), messages=messages,
        tools=tuple(state.tools), max_tokens=state.max_tokens, context="\n\n".join(tail),
        cache=CacheBreaks(system=tuple(chars for chars, _ in state.system_marks[-2:]),
                          messages=tuple(message_marks)))
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
                          trimmed=tuple(state.trimmed), prefix=tuple(state.units),
                          breakpoints=tuple(state.breakpoints))


def tool_schema_text(schema: ToolSchema) -> str:
    """The canonical text of a tool schema item (what its tokens are counted on)."""
    return json.dumps(schema.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
