"""An item as a session-log record and back, including records written before items had
typed payloads (those carried a `meta` dict of string keys; `legacy_fields` converts it).

A record is the item's JSON form without its default fields; a content longer than
`INLINE_LIMIT` is kept once in the blob store and the record names it by hash.
"""

from __future__ import annotations

from typing import Any

from swetui.engine.blobs import INLINE_LIMIT, BlobStore
from swetui.engine.items import ContextItem, FoldRecord, ItemKind, ItemState
from swetui.engine.payloads import (
    AssistantPayload,
    ExchangePayload,
    GrepPayload,
    Payload,
    ReferenceIndexPayload,
    RunningSummaryPayload,
    SummaryFacts,
    ToolCallPayload,
)


def item_record(item: ContextItem, blobs: BlobStore | None = None) -> dict[str, Any]:
    """The record the session log keeps for `item` (large contents go to `blobs`)."""
    data = item.model_dump(mode="json", exclude_defaults=True)
    data["id"] = item.id
    if blobs is not None and len(item.content) > INLINE_LIMIT:
        blobs.put(item.content, item.content_hash)
        data.pop("content", None)
        data["content_hash"] = item.content_hash
    return data


def item_from_record(data: dict[str, Any]) -> ContextItem:
    """The item a record describes, in either format; ValueError when it describes none."""
    if "meta" in data:
        meta = _mapping(data["meta"])
        data = {key: value for key, value in data.items() if key != "meta"}
        try:
            data.update(legacy_fields(data.get("kind"), meta))
        except TypeError as exc:  # a value of the wrong type where a number was expected
            raise ValueError(f"unreadable meta: {exc}") from None
    # A field this version does not know (a newer log) is left out, as it always was.
    return ContextItem.model_validate({key: value for key, value in data.items()
                                       if key in ContextItem.model_fields})


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def legacy_fields(kind: object, meta: dict[str, Any]) -> dict[str, Any]:
    """The typed fields (`payload`, `folded`, `stale_reason`) for an old record's `meta`.

    Keys nothing read are not carried over: `retrieved` and `added_by` said what the item's
    `origin` says (auto retrieval, the user's `@path`)."""
    fields: dict[str, Any] = {}
    payload = _legacy_payload(kind, meta)
    if payload is not None:
        fields["payload"] = payload
    record = meta.get("compaction")
    if isinstance(record, dict) and record.get("id"):
        fields["folded"] = FoldRecord(compaction_id=str(record["id"]),
                                      state=ItemState(record.get("state", "included")),
                                      stub=record.get("stub"))
    if meta.get("stale"):
        fields["stale_reason"] = str(meta["stale"])
    return fields


def _legacy_payload(kind: object, meta: dict[str, Any]) -> Payload | None:
    if meta.get("compaction_id"):
        return _legacy_output(meta)
    if kind == ItemKind.TOOL_CALL:
        arguments = meta.get("arguments")
        return ToolCallPayload(name=str(meta.get("name") or ""),
                               arguments=arguments if isinstance(arguments, dict) else {},
                               is_error=bool(meta.get("is_error")),
                               summary=str(meta.get("summary") or ""),
                               refreshed=meta.get("refreshed"))
    if kind == ItemKind.ASSISTANT_MESSAGE:
        return AssistantPayload(tool_call_ids=tuple(meta.get("tool_call_ids") or ()),
                                reasoning=str(meta.get("reasoning") or ""),
                                interrupted=bool(meta.get("interrupted")))
    if kind == ItemKind.GREP and ("terms" in meta or "hits" in meta):
        return GrepPayload(terms=tuple(meta.get("terms") or ()), hits=int(meta.get("hits", 0)))
    return None


def _legacy_output(meta: dict[str, Any]) -> Payload | None:
    common = {"compaction_id": str(meta["compaction_id"]), "turn": meta.get("turn"),
              "undone": bool(meta.get("undone"))}
    role = meta.get("role")
    if role in ("header", "summary"):
        counterpart = meta.get("summary_id") if role == "header" else meta.get("header_id")
        return ExchangePayload.model_validate({
            **common, "form": role, "items": tuple(meta.get("items") or ()),
            "counterpart": str(counterpart or "")})
    if role == "running":
        return RunningSummaryPayload.model_validate(
            {**common, "facts": legacy_facts(_mapping(meta.get("facts")))})
    if role == "index":
        return ReferenceIndexPayload.model_validate(
            {**common, "groups": _mapping(meta.get("groups"))})
    return None


def legacy_facts(facts: dict[str, Any]) -> SummaryFacts:
    """The running summary's facts from an old record (`next` is now `next_steps`)."""
    known = {key: value for key, value in facts.items() if key in SummaryFacts.model_fields}
    if "next" in facts:
        known["next_steps"] = facts["next"]
    return SummaryFacts.model_validate(known)
