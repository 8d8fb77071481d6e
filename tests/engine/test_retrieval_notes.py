"""What retrieval tells the user reads as one thing: a file the request names and gets whole
is not also said to be "already in context" (the span of it that the map found is inside
what this request sends, not something an earlier one did), and a member note names a
property once, not once for its getter and once for its setter."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_members import member_lines
from swetui.engine.spans import Span, render
from swetui.engine.symbols.extract import extract
from swetui.engine.symbols.symbol_map import SymbolMap

EASTER = '''\
def easter(year, method=3):
    """The date of Easter in `year` by the Orthodox (2) or Western (3) method."""
    golden = year % 19
    return golden + method
'''


def _index(root: Path):  # type: ignore[no-untyped-def]
    symbols = SymbolMap(root)
    symbols.build()
    return symbols.index()


def test_a_named_short_file_sent_whole_is_not_said_to_be_already_in_context(
        tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "easter.py").write_text(EASTER)
    found = retrieve(tmp_path, "in pkg/easter.py, how is easter() computed for Orthodox?",
                     ContextEngine(), turn=1, symbols=_index(tmp_path), semantic=None)
    assert [item.kind for item in found.items] == [ItemKind.FILE]
    assert found.summary == "read pkg/easter.py", found.summary


def test_a_file_sent_by_an_earlier_turn_is_still_said_to_be_in_context(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "easter.py").write_text(EASTER)
    engine, index = ContextEngine(), _index(tmp_path)
    first = retrieve(tmp_path, "read pkg/easter.py", engine, turn=1, symbols=index,
                     semantic=None)
    engine.add_many(first.items)
    again = retrieve(tmp_path, "in pkg/easter.py, how is easter() computed?", engine,
                     turn=2, symbols=index, semantic=None)
    assert again.items == []
    assert "pkg/easter.py is already in context" in again.summary


def _relativedelta(properties: list[bool], plain: int) -> str:
    """A class with `plain` methods and one property per entry (with a setter when True)."""
    lines = ["class relativedelta:", "    def _set_months(self, months):", "        return 1"]
    for n in range(plain):
        lines += [f"    def method_{n}(self):", f"        return {n}"]
    for n, settable in enumerate(properties):
        lines += ["    @property", f"    def prop_{n}(self):", f"        return self._{n}"]
        if settable:
            lines += [f"    @prop_{n}.setter", f"    def prop_{n}(self, value):",
                      f"        self._{n} = value"]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=8), st.integers(min_value=12, max_value=16))
def test_a_member_note_names_each_member_once(properties: list[bool], plain: int) -> None:
    """Law: the note of members not shown names each other member exactly once (a
    property with a setter is one name), and none the span shows."""
    source = _relativedelta(properties, plain)
    symbols = extract("relativedelta.py", source.encode(), "python")
    cls = next(d for d in symbols.definitions if d.qualname == "relativedelta")
    picked = [next(d for d in symbols.definitions if d.name == "_set_months")]
    _chosen, note = member_lines(symbols, cls, picked, source.splitlines())
    names = [f"method_{n}" for n in range(plain)] + [f"prop_{n}" for n in range(len(properties))]
    assert "not shown: " in note, note
    listed = re.findall(r"(\w+) \(line \d+\)", note)
    more = re.search(r" and (\d+) more$", note)
    assert len(listed) == len(set(listed)), note
    assert "_set_months" not in listed
    assert len(listed) + (int(more.group(1)) if more else 0) == len(names), note
    assert set(listed) <= set(names)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=3000), st.data())
def test_a_span_note_says_how_to_read_on_in_one_call_read_file_takes(
        total: int, data: st.DataObject) -> None:
    """Law: a span showing part of a file says so once, with one read_file call that
    read_file takes as written (a path and a number: the first line after the last shown,
    or the file's first when the last line is shown), not a pattern (`offset=N`) beside it."""
    shown = data.draw(st.lists(st.integers(min_value=1, max_value=total), min_size=1,
                               max_size=min(total - 1, 40), unique=True))
    text = [f"line {n}" for n in range(1, total + 1)]
    head = render(Span("pkg/a b.py", lines=shown, reasons=["f: named"]), text).split("\n")[0]
    calls = re.findall(r"read_file\(([^)]*)\)", head)
    assert len(calls) == 1, head
    after = max(shown) + 1 if max(shown) < total else 1
    assert calls[0] == f"path='pkg/a b.py', offset={after}", head
    # the element the block is sent in names the file (source="…"): the note does not again
    assert head.startswith(f"{len(shown):,} of {total:,} lines shown (f: named)"), head
    # and says what that call reads: on past the span, or the file from its top when the
    # span reaches the file's end (offset=1 then reads what is before it, not on)
    assert head.endswith(" reads on." if max(shown) < total else " reads from the top."), head


STORE = '''\
import os


class Store:
    """Keeps values by key."""

    def get(self, key):
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
        return value


def easter(year, method=3):
    """The date of Easter in `year` by the Orthodox (2) or Western (3) method."""
    golden = year % 19
    return golden + method


def helper():
    return 1
'''


def _note(root: Path, request: str) -> str:
    (root / "store.py").write_text(STORE)
    found = retrieve(root, request, ContextEngine(), turn=1, symbols=_index(root),
                     semantic=None)
    [span] = [item for item in found.items if item.kind is ItemKind.SPAN]
    return span.content.split("\n")[0]


def test_a_span_note_does_not_say_what_the_request_says(tmp_path: Path) -> None:
    """A definition the request names, or the one its description matched, is what it asked
    for: its note says how much is shown and how to read on, not `named in the request` or
    `matches the description` (tokens sent for no line of code, on every such block)."""
    named = _note(tmp_path, "What does Store.get return for a missing key?")
    assert re.fullmatch(r"\d+ of 22 lines shown; read_file\(path='store.py', offset=\d+\) "
                        r"reads on\.", named), named
    described = _note(tmp_path, "How is the date of Easter computed by the Orthodox method?")
    assert re.fullmatch(r"\d+ of 22 lines shown; read_file\(path='store.py', offset=\d+\) "
                        r"reads on\.", described), described


def test_lines_left_out_of_a_span_are_one_mark(tmp_path: Path) -> None:
    """Between a method's class header and the method, the lines left out are marked by
    `…` alone: indentation before it lines nothing up and is sent for no line of code."""
    (tmp_path / "store.py").write_text(STORE)
    found = retrieve(tmp_path, "What does Store.get return for a missing key?",
                     ContextEngine(), turn=1, symbols=_index(tmp_path), semantic=None)
    [span] = [item for item in found.items if item.kind is ItemKind.SPAN]
    assert span.content.split("\n")[1:] == [
        "     4\tclass Store:", "…", "     7\t    def get(self, key):",
        "     8\t        return self.data[key]"], span.content
