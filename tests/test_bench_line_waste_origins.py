"""The line-waste breakdown of the retrieval benchmark (`bench/line_waste_origins.py`) tags
each line of a block with the part of the span that put it there, and takes the verdict
(waste or not) from the benchmark's own judge."""

from __future__ import annotations

from pathlib import Path

from bench.bench_retrieval_quality import judged_lines
from bench.line_waste_origins import Tallies, classify, measure
from bench.retrieval_projects import needed
from swetui.engine.items import ContextItem, ItemKind, Layer, Source
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.lookup import Hit

STORE = '''class Store:
    """A store.

    It keeps things."""

    def get(self, key):
        return self.data[key]

    def put(self, key, value):
        """Put a value."""
        self.data[key] = value
        return value


def helper():
    return 1
'''


def span(content: str) -> ContextItem:
    return ContextItem(id="s", kind=ItemKind.SPAN, layer=Layer.TASK, title="t",
                       source=Source(path="store.py"), content=content)


def test_each_line_of_a_whole_class_is_tagged_by_its_part(tmp_path: Path) -> None:
    (tmp_path / "store.py").write_text(STORE, encoding="utf-8")
    needs = needed(tmp_path, [{"path": "store.py", "symbols": ["Store.get"]}])
    lines = STORE.split("\n")
    body = "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in range(1, 13))
    item = span(f"store.py: 12 of 17 lines shown (Store: named).\n{body}")
    hit = Hit("store.py", Definition("Store", "Store", "class", 1, 12), 1, 1.0, "named",
              how="named")

    judged = judged_lines(item, needs)
    parts = [part for part, _how, _which in classify(item, tmp_path, judged, [hit])]

    assert parts == ["context element", "note", "class header", "class docstring",
                     "class docstring", "class docstring", "class attributes", "member first line",
                     "member body", "class attributes", "member first line",
                     "member docstring", "member body", "member body", "context element"]
    tallies = Tallies()
    measure([item], tmp_path, needs, [], tallies)  # no hits: parts by lines only
    assert tallies.tokens == sum(j.tokens for j in judged)
    wasted = {part: row[1] for part, row in tallies.parts.rows.items()}
    note = next(j for j in judged if j.text.startswith("store.py: 12 of 17"))
    assert wasted["note"] == note.tokens  # sent for no needed line: waste, even here
    assert tallies.useful == sum(j.tokens for j in judged if j.useful)


def test_an_outline_entry_is_told_from_a_member_shown_whole(tmp_path: Path) -> None:
    (tmp_path / "store.py").write_text(STORE, encoding="utf-8")
    needs = needed(tmp_path, [{"path": "store.py", "symbols": ["Store.put"]}])
    lines = STORE.split("\n")
    shown = [1, 6, 7, 9, 10, 11, 12]
    item = span("\n".join(["store.py: note"] + [f"{n:>6}\t{lines[n - 1]}" for n in shown]))
    hit = Hit("store.py", Definition("Store", "Store", "class", 1, 12), 1, 1.0, "described")

    parts = [part for part, _how, _which in classify(item, tmp_path,
                                                     judged_lines(item, needs), [hit])]

    assert parts[2:5] == ["class header", "member first line", "member body"]
    assert parts[5] == "member first line"  # `put` is shown whole: not an outline entry
    shown_alone = [1, 6, 9]
    alone = span("\n".join(["n"] + [f"{n:>6}\t{lines[n - 1]}" for n in shown_alone]))
    parts = [part for part, _how, _which in classify(alone, tmp_path,
                                                     judged_lines(alone, needs), [hit])]
    assert parts[3:-1] == ["member first line only", "member first line only"]
