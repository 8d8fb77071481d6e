"""The law of `ContextItem.with_fields`, the copy the engine makes for every change (a
compaction makes one per folded item): it is the same item `model_copy(update=...)` gives,
field for field, in its dump and in a session log record, and the original is untouched."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.item_records import item_from_record, item_record
from swetui.engine.items import ContextItem, FoldRecord, ItemKind, ItemState, Layer, Source
from swetui.engine.payloads import ToolCallPayload

texts = st.text(max_size=40)
records = st.builds(FoldRecord, compaction_id=st.sampled_from(["k1", "k7"]),
                    state=st.sampled_from(list(ItemState)),
                    stub=st.one_of(st.none(), texts))
items = st.builds(
    ContextItem, id=st.sampled_from(["c1", "u2", "r3"]), kind=st.sampled_from(list(ItemKind)),
    layer=st.sampled_from(list(Layer)), title=texts, content=texts,
    state=st.sampled_from(list(ItemState)), pinned=st.booleans(),
    source=st.builds(Source, path=st.one_of(st.none(), st.just("src/a.py"))),
    payload=st.one_of(st.none(), st.builds(ToolCallPayload, name=st.just("grep"),
                                           arguments=st.just({"pattern": "x"}))),
    folded=st.one_of(st.none(), records))
changes = st.fixed_dictionaries({}, optional={
    "state": st.sampled_from(list(ItemState)), "stub": st.one_of(st.none(), texts),
    "pinned": st.booleans(), "folded": st.one_of(st.none(), records),
    "tokens": st.integers(0, 10_000), "content": texts, "title": texts})


@given(item=items, update=changes)
def test_with_fields_is_model_copy_field_for_field(item: ContextItem,
                                                   update: dict[str, Any]) -> None:
    before = item.model_dump()
    copied = item.with_fields(update)
    expected = item.model_copy(update=update)
    assert copied == expected
    assert copied.model_dump() == expected.model_dump()
    assert copied.model_fields_set == expected.model_fields_set
    assert item_from_record(item_record(copied)) == item_from_record(item_record(expected))
    assert item.model_dump() == before  # the original is untouched
    if update:
        assert copied is not item


def test_with_fields_refuses_a_name_that_is_no_field() -> None:
    item = ContextItem(id="x", kind=ItemKind.FILE, layer=Layer.TASK, title="x")
    with pytest.raises(TypeError, match="no field meta"):
        item.with_fields({"meta": 1})
