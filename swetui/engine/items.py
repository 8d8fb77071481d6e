"""The context item: the unit the user sees and edits, and everything that can reach the model."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from swetui.engine.payloads import (
    AssistantPayload,
    CompactionOutput,
    ItemPayload,
    ToolCallPayload,
)


class Layer(StrEnum):
    """Where an item sits in the window; the gauge shows one row per layer."""

    SYSTEM = "system"
    MEMORY = "memory"
    SUMMARY = "summary"
    HISTORY = "history"
    TASK = "task"
    PINNED = "pinned"
    RESERVE = "reserve"


LAYER_ORDER: tuple[Layer, ...] = tuple(Layer)


class ItemState(StrEnum):
    INCLUDED = "included"
    DROPPED = "dropped"
    COMPACTED = "compacted"
    STALE = "stale"
    DEFERRED = "deferred"
    """A tool whose schema is not sent yet: only its one-line `stub` is (deferred MCP tools,
    loaded by the model's `tool_search`)."""
    ARCHIVED = "archived"
    """In the archive only, sent in no form (history before a chunk boundary; a tool call
    whose exchange is down to its header): `recall` still brings it back."""


class Origin(StrEnum):
    USER = "user"
    AGENT = "agent"
    AUTO = "auto"


class ItemKind(StrEnum):
    SYSTEM_PROMPT = "system_prompt"
    TOOL_SCHEMA = "tool_schema"
    MEMORY_FILE = "memory_file"
    SESSION_NOTES = "session_notes"
    PLAN = "plan"
    SUMMARY = "summary"
    EXCHANGE_DIGEST = "exchange_digest"
    USER_MESSAGE = "user_message"
    ASSISTANT_MESSAGE = "assistant_message"
    TOOL_CALL = "tool_call"
    FILE = "file"
    SPAN = "span"
    """Part of a file retrieval attached: a definition and its neighbours."""
    SHORTLIST = "shortlist"
    """Where to read, one line per definition: retrieval's likely places for a request."""
    GREP = "grep"
    LISTING = "listing"


class Source(BaseModel):
    """Where an item came from."""

    path: str | None = None
    turn_id: str | None = None
    tool_call_id: str | None = None


class FoldRecord(BaseModel):
    """What a folded item keeps to be undone: the compaction that folded it and the state
    and stub it had before."""

    model_config = ConfigDict(frozen=True)

    compaction_id: str
    state: ItemState
    stub: str | None = None
    previous: FoldRecord | None = None
    """The record of the compaction that had folded the item before this one did (a tool
    call's stub archived later): undo puts it back."""


_NO_CALL = ToolCallPayload()


class ContextItem(BaseModel):
    """One thing that can reach the model, with its token cost and state.

    `content` holds the text actually sent (a user's edit replaces it; `original` keeps what
    was there before). Large contents are kept once in the blob store and referenced by
    `content_hash`; the engine fills `content` back in when it loads them. Unknown fields are
    refused (an old `meta=` would otherwise vanish without a word).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: ItemKind
    layer: Layer
    title: str
    source: Source = Field(default_factory=Source)
    content: str = ""
    content_hash: str = ""
    tokens: int = 0
    state: ItemState = ItemState.INCLUDED
    pinned: bool = False
    origin: Origin = Origin.AUTO
    turn_created: int = 0
    turn_last_used: int = 0
    original: str | None = None
    """The content before the user edited it (None when never edited)."""
    stub: str | None = None
    """What is sent instead of `content` when the item is compacted (a one-line result)."""
    payload: ItemPayload | None = None
    """What the kind carries beyond its text (a tool call's name and arguments, ...); None
    for kinds that carry nothing more (prompts, memory, files, listings)."""
    folded: FoldRecord | None = None
    """While a compaction keeps this item folded: which one, and how to undo it."""
    stale_reason: str | None = None
    """Why the item is stale (its file changed or went away), while it is."""

    @property
    def effective_layer(self) -> Layer:
        """Pinned items count in the pinned layer, whatever their home layer."""
        return Layer.PINNED if self.pinned else self.layer

    @property
    def call(self) -> ToolCallPayload:
        """A tool call's name, arguments and outcome (empty ones for any other item)."""
        return self.payload if isinstance(self.payload, ToolCallPayload) else _NO_CALL

    @property
    def call_ids(self) -> tuple[str, ...]:
        """The tool calls an assistant message carries (none for any other item)."""
        return self.payload.tool_call_ids if isinstance(self.payload, AssistantPayload) else ()

    @property
    def created_by(self) -> CompactionOutput | None:
        """What a compaction-created item (digest, running summary, index) records."""
        return self.payload if isinstance(self.payload, CompactionOutput) else None

    @property
    def edited(self) -> bool:
        return self.original is not None

    @property
    def sent(self) -> bool:
        """Whether any form of the item reaches the model."""
        if self.pinned:
            return True
        if self.state is ItemState.ARCHIVED:
            return False
        if self.state in (ItemState.INCLUDED, ItemState.STALE):
            return True
        if self.state is ItemState.DEFERRED:
            return bool(self.stub)
        # A tool call must keep its result paired with the assistant's call: its stub goes.
        return self.kind is ItemKind.TOOL_CALL

    def sent_arguments(self) -> dict[str, Any]:
        """A tool call's arguments as sent: in full while the item is included, with long
        values cut once it is dropped or compacted (the archive keeps them whole)."""
        arguments = self.call.arguments
        if self.pinned or self.state in (ItemState.INCLUDED, ItemState.STALE):
            return arguments
        return {key: _shorten(value, self.id) for key, value in arguments.items()}

    def with_fields(self, changes: Mapping[str, Any]) -> ContextItem:
        """A copy with `changes` to its fields, like `model_copy(update=changes)` (whose
        values are not validated again either) at a third of its cost: a compaction makes
        one per item it folds. A name that is no field raises TypeError (`model_copy` would
        take it silently, and the change would be lost)."""
        unknown = changes.keys() - _FIELD_NAMES
        if unknown:
            raise TypeError(f"context items have no field {', '.join(sorted(unknown))}")
        copy = type(self).__new__(type(self))
        values = self.__dict__.copy()
        values.update(changes)
        object.__setattr__(copy, "__dict__", values)
        object.__setattr__(copy, "__pydantic_fields_set__",
                           self.__pydantic_fields_set__ | changes.keys())
        object.__setattr__(copy, "__pydantic_extra__", None)
        object.__setattr__(copy, "__pydantic_private__", None)
        return copy

    def sent_text(self) -> str:
        """The text this item contributes to the request."""
        if self.pinned or self.state in (ItemState.INCLUDED, ItemState.STALE):
            return self.content
        if self.state is ItemState.DEFERRED:
            return self.stub or ""
        if self.kind is ItemKind.TOOL_CALL and self.state is not ItemState.ARCHIVED:
            if self.state is ItemState.COMPACTED and self.stub:
                return self.stub
            return f"[{self.state.value} by the user; recall id {self.id}]"
        return ""


_FIELD_NAMES = frozenset(ContextItem.model_fields)

ARGUMENT_KEEP = 80
"""Characters of a long argument kept when its tool call is folded."""


def _shorten(value: Any, item_id: str) -> Any:
    if isinstance(value, str) and len(value) > 2 * ARGUMENT_KEEP:
        return f"{value[:ARGUMENT_KEEP]}… [{len(value):,} chars; recall {item_id}]"
    return value
