"""Items as session-log records: typed payloads come back as they were stored, and a log
written before items had typed payloads (each item carried a `meta` dict) resumes into the
same items, request and compactions as the code that wrote it restored."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.session import AgentSession
from swetui.engine.compaction import active_compactions
from swetui.engine.context import ContextEngine
from swetui.engine.item_records import item_from_record, item_record
from swetui.engine.items import ContextItem, FoldRecord, ItemKind, ItemState, Layer, Origin
from swetui.engine.payloads import (
    AssistantPayload,
    ExchangePayload,
    FilePayload,
    GrepPayload,
    ReferenceIndexPayload,
    RunningSummaryPayload,
    SummaryFacts,
    ToolCallPayload,
)
from swetui.options import LaunchOptions
from tests.agent.scripted import ScriptedProvider
from tests.engine.helpers import conversation, role

FIXTURE = Path(__file__).parent / "fixtures" / "meta_era_session"
EXPECTED: dict[str, Any] = json.loads((FIXTURE / "expected.json").read_text())
LAST_SEQ = max(json.loads(line)["seq"] for line in
               next((FIXTURE / "sessions").glob("*.jsonl")).read_text().splitlines())
SOURCE_KINDS = {"system_prompt", "tool_schema", "memory_file", "session_notes"}
"""Read from the workspace at every start, not from the log (and tool schemas change)."""


@pytest.fixture
def old_workspace(tmp_path: Path) -> Path:
    """The workspace as the old session left it, with its log and blobs."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE / "workspace", root)
    shutil.copytree(FIXTURE / "sessions", root / ".swetui" / "sessions")
    shutil.copytree(FIXTURE / "blobs", root / ".swetui" / "blobs")
    return root


def resume(root: Path) -> AgentSession:
    return AgentSession.open(LaunchOptions(path=root, resume=EXPECTED["session"]), env={},
                             provider=ScriptedProvider())


def state(session: AgentSession, root: Path) -> dict[str, Any]:
    """What the fixture's expected.json records, for the session as it is now."""
    engine = session.engine
    request = json.loads(engine.assemble().request.canonical_json().replace(str(root),
                                                                             "<ROOT>"))
    return {"request": {key: value for key, value in old_layout(request).items()
                        if key not in ("system", "tools")},
            "active": active_compactions(engine), "turn": engine.turn,
            "budget": [usage.model_dump(mode="json") for usage in engine.budget().layers
                       if usage.name != "system"]}


def old_layout(request: dict[str, Any]) -> dict[str, Any]:
    """The request as the fixture's code laid it out: retrieved and pinned `<context>` blocks
    ahead of the last user message (now they follow the newest message, with the notes and
    summary that were part of the system prompt, which is not compared)."""
    context = request.get("context", "")
    request = {key: value for key, value in request.items() if key not in ("context", "cache")}
    blocks = re.findall(r'<context id=".*?</context>', context, re.S)
    users = [i for i, message in enumerate(request["messages"]) if message["role"] == "user"]
    if blocks and users:
        last = dict(request["messages"][users[-1]])
        last["content"] = "\n\n".join(blocks) + "\n\n" + last["content"]
        request["messages"] = [*request["messages"][:users[-1]], last,
                               *request["messages"][users[-1] + 1:]]
    return request


def expected_state(which: str) -> dict[str, Any]:
    saved = EXPECTED[which]
    return {"request": saved["request"], "active": saved["active"], "turn": saved["turn"],
            "budget": [usage for usage in saved["budget"] if usage["name"] != "system"]}


def assert_meta_kept(meta: dict[str, Any], item: ContextItem) -> None:
    """Every key of an old item's `meta` is in one of the new item's typed fields."""
    payload: Any = item.payload
    for key, value in meta.items():
        match key:
            case "name" | "arguments" | "is_error" | "summary" | "refreshed":
                assert getattr(item.call, key) == value, (item.id, key)
            case "tool_call_ids":
                assert list(item.call_ids) == value, item.id
            case "reasoning" | "interrupted":
                assert isinstance(payload, AssistantPayload)
                assert getattr(payload, key) == value, (item.id, key)
            case "compaction":
                assert item.folded == FoldRecord(compaction_id=value["id"],
                                                 state=ItemState(value["state"]),
                                                 stub=value["stub"]), item.id
            case "compaction_id" | "turn" | "undone":
                assert getattr(item.created_by, key) == value, (item.id, key)
            case "role":
                assert role(item) == value, item.id
            case "items":
                assert list(payload.items) == value, item.id
            case "summary_id" | "header_id":
                assert payload.counterpart == value, item.id
            case "facts":
                renamed = {("next_steps" if name == "next" else name): facts
                           for name, facts in value.items()}
                assert payload.facts == SummaryFacts.model_validate(renamed), item.id
            case "groups":
                assert payload.groups == value, item.id
            case "terms" | "hits":
                assert isinstance(payload, GrepPayload)
                assert getattr(payload, key) == (tuple(value) if key == "terms" else value)
            case "stale":
                assert item.stale_reason == value, item.id
            case "retrieved":  # said what the origin says
                assert item.origin is Origin.AUTO and item.layer is Layer.TASK, item.id
            case "added_by":
                assert item.origin is Origin.USER, item.id
            case _:
                pytest.fail(f"{item.id}: meta key {key!r} was not carried over")


def assert_items_kept(session: AgentSession, which: str) -> int:
    """Each non-source item as the old code restored it: same fields, meta kept."""
    checked = 0
    for old in EXPECTED[which]["items"]:
        if old["kind"] in SOURCE_KINDS:
            continue
        item = session.engine.get(old["id"])
        new = item.model_dump(mode="json")
        for field, value in old.items():
            if field != "meta":
                assert new[field] == value, (old["id"], field)
        assert_meta_kept(old["meta"], item)
        checked += 1
    return checked


async def test_a_log_from_before_typed_payloads_resumes_into_the_same_request(old_workspace):
    session = resume(old_workspace)
    try:
        assert state(session, old_workspace) == expected_state("restored")
        assert assert_items_kept(session, "restored") > 90
        assert "undone" in session.undo_compaction()
        assert state(session, old_workspace) == expected_state("after_undo")
        assert_items_kept(session, "after_undo")
    finally:
        await session.aclose()


async def test_the_old_items_kinds_and_meta_keys_are_all_in_the_fixture(old_workspace):
    """The fixture exercises every kind of old record the loader converts (so the test
    above cannot pass by having nothing to convert)."""
    keys = {key for item in EXPECTED["restored"]["items"] for key in item["meta"]}
    assert keys >= {"name", "arguments", "is_error", "summary", "refreshed", "tool_call_ids",
                    "reasoning", "interrupted", "compaction", "compaction_id", "role", "turn",
                    "undone", "items", "header_id", "summary_id", "facts", "groups", "stale",
                    "terms", "hits", "retrieved", "added_by"}
    session = resume(old_workspace)
    try:
        payloads = {type(item.payload) for item in session.engine}
        assert payloads >= {ToolCallPayload, AssistantPayload, GrepPayload, ExchangePayload,
                            RunningSummaryPayload, ReferenceIndexPayload}
        assert any(item.folded for item in session.engine)
    finally:
        await session.aclose()


async def test_an_old_session_continues_in_the_new_format_and_resumes_again(old_workspace):
    session = resume(old_workspace)
    await session.compact("manual")  # what is in effect after the old log's compactions
    assert "undone" in session.undo_compaction()
    before = state(session, old_workspace)
    log = session.workspace.store.path
    await session.aclose()
    assert log is not None
    added = [event for event in map(json.loads, log.read_text().splitlines())
             if event["seq"] > LAST_SEQ and event["type"] == "item"]
    assert added and not [event for event in added if "meta" in event["item"]]
    again = resume(old_workspace)
    try:
        assert state(again, old_workspace) == before
    finally:
        await again.aclose()


# -- round trip --------------------------------------------------------------------------

_json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=8)
_ids = st.text("abcdk0123456789", min_size=1, max_size=6)
_texts = st.text(max_size=30)
_common = {"compaction_id": _ids, "turn": st.integers(0, 500), "undone": st.booleans()}

payloads = st.one_of(
    st.none(),
    st.builds(ToolCallPayload, name=_texts, arguments=st.dictionaries(_texts, _json_value,
                                                                      max_size=4),
              is_error=st.booleans(), summary=_texts, refreshed=st.none() | _texts),
    st.builds(FilePayload, mtime_ns=st.none() | st.integers(min_value=0, max_value=2**63 - 1)),
    st.builds(AssistantPayload, tool_call_ids=st.tuples(_ids, _ids) | st.just(()),
              reasoning=_texts, interrupted=st.booleans()),
    st.builds(GrepPayload, terms=st.lists(_texts, max_size=3).map(tuple),
              hits=st.integers(0, 10_000)),
    st.builds(ExchangePayload, form=st.sampled_from(["header", "summary"]),
              items=st.lists(_ids, max_size=4).map(tuple), counterpart=_ids, **_common),
    st.builds(RunningSummaryPayload, facts=st.builds(
        SummaryFacts, first_turn=st.none() | st.integers(0, 99), folded=st.integers(0, 99),
        next_steps=st.none() | _texts, files=st.lists(_texts, max_size=3).map(tuple)),
        **_common),
    st.builds(ReferenceIndexPayload, groups=st.dictionaries(
        _texts, st.lists(_ids, max_size=3), max_size=3), **_common),
)

items = st.builds(
    ContextItem, id=_ids, kind=st.sampled_from(ItemKind), layer=st.sampled_from(Layer),
    title=_texts, content=_texts, state=st.sampled_from(ItemState), pinned=st.booleans(),
    payload=payloads, stale_reason=st.none() | _texts,
    folded=st.none() | st.builds(FoldRecord, compaction_id=_ids,
                                 state=st.sampled_from(ItemState), stub=st.none() | _texts))


@given(items)
def test_an_item_comes_back_from_its_log_record_as_it_was(item: ContextItem) -> None:
    line = json.dumps(item_record(item), ensure_ascii=False)  # what the store writes
    assert "meta" not in json.loads(line)
    assert item_from_record(json.loads(line)) == item


def test_a_record_with_unreadable_meta_is_refused_with_a_value_error() -> None:
    record = {"id": "g1", "kind": "grep", "layer": "task", "title": "grep",
              "meta": {"terms": ["x"], "hits": None}}
    with pytest.raises(ValueError):
        item_from_record(record)
    record["meta"] = {"compaction_id": "k1", "role": "header"}  # a header without its turn
    with pytest.raises(ValueError):
        item_from_record(record)


def test_an_unknown_item_field_is_refused_not_dropped() -> None:
    """Code still writing the old `meta` dict fails loudly instead of losing what it wrote."""
    engine = ContextEngine()
    conversation(engine, 1)
    with pytest.raises(ValueError):
        ContextItem(id="x", kind=ItemKind.FILE, layer=Layer.TASK, title="x",
                    meta={"name": "read_file"})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="no field meta"):
        engine.update("c1", meta={"is_error": True})
    with pytest.raises(TypeError, match="no field meta"):
        engine.price(engine.get("c1"), meta={"is_error": True})
    assert engine.get("c1").call == ToolCallPayload(name="read_file",
                                                    arguments={"path": "file1.py"})


def test_a_record_with_a_field_this_version_does_not_know_still_loads() -> None:
    record = item_record(ContextItem(id="u1", kind=ItemKind.USER_MESSAGE,
                                     layer=Layer.HISTORY, title="hi", content="hi"))
    assert item_from_record({**record, "written_by_a_newer_swetui": 1}).content == "hi"
