"""A long class shown by the members a request is about never shows its constructor whole
beside another member: the constructor names every attribute the class has, so the
request's words match it whenever they match the member that does the work (the progress
bar's `__init__` beside its `format_bar`). Picked alone it is shown whole: then it is where
the asked value is set (a transport's number of retries)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_members import (
    MAX_MEMBERS,
    focus_members,
    is_constructor,
    members,
)
from swetui.engine.symbols.symbol_map import SymbolMap

BAR = (
    "class ProgressBar:\n"
    "    def __init__(self, fill_char, empty_char, width, label, retries):\n"
    + "".join(f"        self.{name} = {name}\n"
              for name in ("fill_char", "empty_char", "width", "label", "retries"))
    + "".join(f"        self.counter_{n} = 0\n" for n in range(12))
    + "\n"
    "    def format_bar(self):\n"
    "        filled = int(self.pct * self.width)\n"
    "        bar = self.fill_char * filled\n"
    "        return bar + self.empty_char * (self.width - filled)\n"
    "\n"
    "    def format_eta(self):\n"
    "        return str(self.eta)\n"
    "\n"
    "    def render_finish(self):\n"
    "        self.file.write('\\n')\n"
    "        self.file.flush()\n"
    + "".join(f"\n    def step_{n}(self):\n        return {n}\n" for n in range(6))
)


def shown(root: Path, text: str) -> tuple[str, dict[int, str]]:
    symbols = SymbolMap(root)
    symbols.build()
    result = retrieve(root, text, ContextEngine(), turn=1, symbols=symbols.index(),
                      semantic=None)
    [span] = [item for item in result.items if item.kind is ItemKind.SPAN]
    lines = {}
    for line in span.content.splitlines()[1:]:
        match = re.match(r"\s*(\d+)\t(.*)$", line)
        if match:
            lines[int(match.group(1))] = match.group(2)
    return span.content.splitlines()[0], lines


def test_a_constructor_beside_the_member_that_does_the_work_is_shown_by_its_first_line(
        tmp_path: Path) -> None:
    (tmp_path / "bar.py").write_text(BAR)
    note, lines = shown(tmp_path, "How does the ProgressBar draw the filled part of the "
                                  "bar with fill_char and empty_char?")
    text = "\n".join(lines.values())
    assert "bar = self.fill_char * filled" in text  # the member that draws it, whole
    assert "def __init__(self, fill_char, empty_char, width, label, retries):" in text
    assert "self.fill_char = fill_char" not in text  # the constructor by its first line
    assert "shown: its format_bar;" in note and "read_file" in note
    assert "class ProgressBar:" in text  # the class it is in


def test_a_constructor_picked_alone_is_shown_whole(tmp_path: Path) -> None:
    (tmp_path / "bar.py").write_text(BAR)
    note, lines = shown(tmp_path, "How many retries does a ProgressBar keep?")
    assert "self.retries = retries" in "\n".join(lines.values())
    assert "shown: its __init__" in note


_WORDS = ["fill", "width", "label", "retries", "draw", "finish", "eta", "bar"]


@settings(max_examples=40, deadline=None)
@given(asked=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=5))
def test_picked_members_are_the_class_s_own_and_a_constructor_only_alone(
        tmp_path_factory: pytest.TempPathFactory, asked: list[str]) -> None:
    root = tmp_path_factory.mktemp("bar")
    (root / "bar.py").write_text(BAR)
    symbols = SymbolMap(root)
    symbols.build()
    index = symbols.index()
    [(_rel, cls)] = index.by_name["ProgressBar"]
    picked = focus_members(index, "bar.py", cls, "How does the ProgressBar " + " ".join(asked))
    assert len(picked) <= MAX_MEMBERS and len(set(id(m) for m in picked)) == len(picked)
    assert all(m in members(index.by_file["bar.py"], cls) for m in picked)
    assert len(picked) == 1 or not any(is_constructor(cls, m) for m in picked)
