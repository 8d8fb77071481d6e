"""What an item carries beyond its text, typed per kind: a tool call's name, arguments and
outcome, a file's modification time, an assistant message's calls, a grep's terms and what
a compaction created.

A payload is tagged by `type`, so a session log names the payload it stored and reading it
back gives the same class (`ContextItem.payload` is a union discriminated on that tag). The
tag is written even where it equals its default: a record without it could not be read back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer


class Payload(BaseModel):
    """The typed part of an item (frozen: change it with `model_copy(update=...)`)."""

    model_config = ConfigDict(frozen=True)

    @model_serializer(mode="wrap")
    def _keep_tag(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        data["type"] = getattr(self, "type")  # noqa: B009 (every subclass declares it)
        return data


class ToolCallPayload(Payload):
    """A tool call and its result: what the model asked for and how it went."""

    type: Literal["tool_call"] = "tool_call"
    name: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The JSON object the model sent: its keys are the tool's own (each tool's schema
    says them), so this stays a mapping; `sent_arguments` cuts long values once folded."""
    is_error: bool = False
    summary: str = ""
    """The one-line result (what the transcript and a folded stub show)."""
    refreshed: str | None = None
    """Set when the user re-read the call's file from disk ("refreshed … in turn N")."""


class FilePayload(Payload):
    """A file's text as read from disk (`source.path` names the file)."""

    type: Literal["file"] = "file"
    mtime_ns: int | None = None
    """The file's modification time (ns) when its text was read: a resumed session re-reads
    the file when the time on disk differs (it changed while swetui was closed)."""


class AssistantPayload(Payload):
    """An assistant message: the tool calls it made and how it ended."""

    type: Literal["assistant"] = "assistant"
    tool_call_ids: tuple[str, ...] = ()
    """The calls this message carries, in order; their results are TOOL_CALL items."""
    reasoning: str = ""
    interrupted: bool = False


class GrepPayload(Payload):
    """A grep the engine ran for a request: the terms and how many lines matched."""

    type: Literal["grep"] = "grep"
    terms: tuple[str, ...] = ()
    hits: int = 0


class ShortlistPayload(Payload):
    """A shortlist of likely places (`retrieval_shortlist`): the files its lines point into.
    Its line numbers are the files' as they were: a change to one of them makes it stale."""

    type: Literal["shortlist"] = "shortlist"
    paths: tuple[str, ...] = ()


class CompactionOutput(Payload):
    """What every item a compaction created carries: which compaction, for which turn, and
    whether that compaction was undone (then the item is dropped, kept in the archive)."""

    compaction_id: str
    turn: int
    undone: bool = False


class ExchangePayload(CompactionOutput):
    """One half of a folded exchange's digest: its header (always sent) or its summary."""

    type: Literal["exchange"] = "exchange"
    form: Literal["header", "summary"]
    items: tuple[str, ...] = ()
    """The ids of the exchange's items this digest stands for."""
    counterpart: str = ""
    """The other half's id (a header's summary, a summary's header)."""


class SummaryFacts(BaseModel):
    """What the running summary knows of the folded exchanges (merged at each compaction)."""

    model_config = ConfigDict(frozen=True)

    first_turn: int | None = None
    last_turn: int | None = None
    folded: int = 0
    """How many exchanges were folded into it."""
    objective: str | None = None
    latest: str | None = None
    next_steps: str | None = None
    focus: str | None = None
    """The user's instructions to the compaction."""
    last_error: str | None = None
    achievements: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()


class RunningSummaryPayload(CompactionOutput):
    """The running summary of the whole session."""

    type: Literal["running_summary"] = "running_summary"
    facts: SummaryFacts = Field(default_factory=SummaryFacts)


class ReferenceIndexPayload(CompactionOutput):
    """The reference index: every path and identifier of the folded items, by where seen."""

    type: Literal["reference_index"] = "reference_index"
    groups: dict[str, list[str]] = Field(default_factory=dict)


class HandoffPayload(CompactionOutput):
    """The handoff a chunk boundary wrote: the next chunk's requests start from it."""

    type: Literal["handoff"] = "handoff"
    chunk: int
    """The chunk that ended."""
    path: str | None = None
    """The handoff file (workspace-relative), when it could be written."""


CompactionPayload = (ExchangePayload | RunningSummaryPayload | ReferenceIndexPayload
                     | HandoffPayload)
"""What a compaction creates an item with."""

ItemPayload = Annotated[
    ToolCallPayload | FilePayload | AssistantPayload | GrepPayload | ShortlistPayload
    | ExchangePayload | RunningSummaryPayload | ReferenceIndexPayload | HandoffPayload,
    Field(discriminator="type"),
]
"""Every payload an item can carry (None: the kind carries nothing beyond its text)."""
