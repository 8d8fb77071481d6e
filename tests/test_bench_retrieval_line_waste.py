"""The retrieval benchmark's line waste: tokens of the lines sent outside every needed
definition (and the headers of the classes enclosing a needed method), the `<context>`
element around each block and its notes included, on a small project whose line numbers are
known by construction."""

from __future__ import annotations

import re
from pathlib import Path

from bench.bench_retrieval_quality import COUNTER, judge, line_waste
from bench.retrieval_projects import needed
from swetui.engine.assembly import context_block
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Source
from swetui.engine.retrieval import retrieve

STORE = '''import os


class Store:
    """A store."""

    def get(self, key):
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
        return value


def helper():
    return 1


@decorated
class Outer(
    Base,
):
    class Inner:
        def deep(self):
            return 2
'''


def lines(text: str) -> int:
    """Tokens of some lines, counted as the benchmark counts them: line by line."""
    return sum(COUNTER.count(line + "\n") for line in text.split("\n"))


def element(item: ContextItem) -> int:
    """Tokens of the `<context …>` and `</context>` lines the request wraps a block in."""
    opening, *_body, closing = context_block(item).split("\n")
    assert opening.startswith("<context ") and closing == "</context>"
    return lines(opening) + lines(closing)


def block(kind: ItemKind, content: str, path: str | None = "store.py") -> ContextItem:
    return ContextItem(id=f"t{abs(hash(content))}", kind=kind, layer=Layer.TASK, title="t",
                       source=Source(path=path), content=content)


def project(tmp_path: Path) -> Path:
    (tmp_path / "store.py").write_text(STORE, encoding="utf-8")
    return tmp_path


def test_irrelevant_lines_inside_a_relevant_block_are_waste(tmp_path: Path) -> None:
    needs = needed(project(tmp_path), [{"path": "store.py", "symbols": ["Store.get"]}])
    note = "store.py: 6 of 25 lines shown (Store.get: named). Read more with read_file."
    useful = ("     4\tclass Store:\n…\n     7\t    def get(self, key):\n"
              "     8\t        return self.data[key]")
    extra = ("    10\t    def put(self, key, value):\n    11\t        self.data[key] = value\n"
             "    12\t        return value")
    span = block(ItemKind.SPAN, f"{note}\n{useful}\n{extra}")

    wasted, total = line_waste(span, needs)

    assert total == element(span) + lines(f"{note}\n{useful}\n{extra}")
    # the class header is no waste; the note, the gap and the element around are sent for
    # no needed line: waste, as the lines of `put` are
    assert wasted == element(span) + lines(note) + lines("…") + lines(extra)
    score = judge([span], needs, tmp_path, "r")
    assert (score.relevant, score.wasted) == (1, 0)  # by blocks: no waste at all
    assert (score.line_wasted, score.line_tokens) == (wasted, total)
    assert score.tokens == COUNTER.count(context_block(span))  # every token sent


def test_an_irrelevant_block_is_waste_to_its_last_line(tmp_path: Path) -> None:
    needs = needed(project(tmp_path), [{"path": "store.py", "symbols": ["Store.get"]}])
    content = "store.py: 2 of 25 lines shown.\n    15\tdef helper():\n    16\t    return 1"

    span = block(ItemKind.SPAN, content)
    assert line_waste(span, needs) == (element(span) + lines(content),) * 2


def test_a_class_header_alone_is_no_waste_but_not_relevant(tmp_path: Path) -> None:
    needs = needed(project(tmp_path), [{"path": "store.py", "symbols": ["Store.get"]}])
    header = block(ItemKind.SPAN, "     4\tclass Store:")

    assert line_waste(header, needs)[0] == element(header)  # the header line itself: none
    assert judge([header], needs, tmp_path, "r").relevant == 0


def test_grep_hits_are_judged_by_the_line_they_hit(tmp_path: Path) -> None:
    needs = needed(project(tmp_path), [{"path": "store.py", "symbols": ["Store.get"]}])
    title = "grep 'data': 3 hits (source first)"
    inside = "store.py:8: return self.data[key]"
    outside = "store.py:11: self.data[key] = value\nother.py:8: data = 1"
    grep = block(ItemKind.GREP, f"{title}\n{inside}\n{outside}", path=None)

    assert line_waste(grep, needs) == (element(grep) + lines(f"{title}\n{outside}"),
                                       element(grep) + lines(f"{title}\n{inside}\n{outside}"))


def test_shortlist_entries_are_judged_by_the_first_line_they_point_to(tmp_path: Path) -> None:
    """An entry is `path:first-last: def name`: it shows the needed definition when its
    first line is one of it (the other entries and the heading are waste)."""
    needs = needed(project(tmp_path), [{"path": "store.py", "symbols": ["Store.get"]}])
    heading = "Likely places, best first; read_file(path, offset, limit) shows one:"
    needed_entry = "store.py:7-8: def Store.get"
    others = "store.py:10-12: def Store.put\nstore.py:15-16: def helper"
    places = block(ItemKind.SHORTLIST, f"{heading}\n{needed_entry}\n{others}", path=None)

    assert line_waste(places, needs) == (
        element(places) + lines(f"{heading}\n{others}"),
        element(places) + lines(f"{heading}\n{needed_entry}\n{others}"))
    assert judge([places], needs, tmp_path, "r").relevant == 1
    wrong = block(ItemKind.SHORTLIST, f"{heading}\n{others}", path=None)
    assert judge([wrong], needs, tmp_path, "r").relevant == 0


def test_a_named_file_sent_whole_wastes_all_but_the_needed_lines(tmp_path: Path) -> None:
    needs = needed(project(tmp_path), [{"path": "store.py", "symbols": ["Store.get"]}])
    whole = STORE.split("\n")
    kept = {4, 7, 8}  # the class header and Store.get
    waste = "\n".join(text for n, text in enumerate(whole, 1) if n not in kept)

    item = block(ItemKind.FILE, STORE)
    wasted, total = line_waste(item, needs)

    assert total == element(item) + lines(STORE.rstrip())  # sent without its last newline
    assert wasted == element(item) + sum(COUNTER.count(text + "\n")
                                         for n, text in enumerate(whole[:-1], 1) if n not in kept)
    assert wasted == element(item) + lines(waste) - lines("")


def test_a_nested_method_keeps_every_enclosing_class_header(tmp_path: Path) -> None:
    needs = needed(project(tmp_path), [{"path": "store.py", "symbols": ["Outer.Inner.deep"]}])
    outer = "    19\t@decorated\n    20\tclass Outer(\n    21\t    Base,\n    22\t):"
    inner = "    23\t    class Inner:"
    deep = "    24\t        def deep(self):\n    25\t            return 2"
    stray = "    16\t    return 1"

    item = block(ItemKind.SPAN, f"{outer}\n{inner}\n{deep}\n{stray}")
    wasted, total = line_waste(item, needs)

    assert (wasted, total) == (element(item) + lines(stray),
                               element(item) + lines(f"{outer}\n{inner}\n{deep}\n{stray}"))


def test_the_judge_counts_every_token_the_request_carries_for_the_blocks(
        tmp_path: Path) -> None:
    """What is judged is what the model receives: the blocks as the assembled request holds
    them (found in it by their element, not rebuilt), every token counted."""
    root = project(tmp_path)
    needs = needed(root, [{"path": "store.py", "symbols": ["Store.get"]}])
    engine = ContextEngine()
    found = retrieve(root, "show store.py and grep 'return value'", engine, turn=1)
    assert len(found.items) >= 2, found.summary
    engine.add_many(found.items)
    sent = re.findall(r"<context id=\"r[^\"]*\" kind=.*?\n</context>",
                      engine.assemble().request.context, re.DOTALL)
    assert len(sent) == len(found.items)

    score = judge(found.items, needs, root, "r")

    assert score.tokens == sum(COUNTER.count(block) for block in sent)
    assert score.line_tokens == sum(lines(block) for block in sent)
