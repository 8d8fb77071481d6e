"""A class shown for its code shows its docstring's first paragraph: what the class is. The
rest of the docstring (usage examples, parameters, version notes) is left out, and what is
sent says so (the `…` gap, the lines shown of how many, how to read on)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.items import ItemKind
from swetui.engine.span_docstrings import docstring_details
from tests.engine.test_retrieval_focus import ask, numbered

KEYED = '''\
from collections import OrderedDict


class KeyedStore:
    """A store whose keys match in any case.

    All keys are expected to be strings. The store remembers the case of
    the last key set, and iterating over it gives those keys back::

        store = KeyedStore()
        store["Accept"] = "json"
        store["aCCEPT"] == "json"  # True

    .. versionchanged:: 2.0
        Keys are compared with casefold.
    """

    def __init__(self):
        self._store = OrderedDict()

    def __setitem__(self, key, value):
        # the lowered key finds the entry; the entry keeps the spelling it was set with
        self._store[key.lower()] = (key, value)

    def __getitem__(self, key):
        return self._store[key.lower()][1]
'''


def test_a_class_shows_its_docstrings_first_paragraph_and_its_code(tmp_path: Path) -> None:
    (tmp_path / "store.py").write_text(KEYED, encoding="utf-8")
    found = ask(tmp_path, "How does KeyedStore keep the spelling of a key?")
    [item] = [item for item in found.items if item.kind is ItemKind.SPAN]
    shown = numbered(item.content)
    source = KEYED.split("\n")
    assert shown[4] == "class KeyedStore:"
    assert shown[5] == '    """A store whose keys match in any case.'
    assert not any(n in shown for n in range(6, 17))  # usage, example, version note
    for number in range(18, 27):  # the code: every member whole
        assert shown[number] == source[number - 1]
    lines = item.content.split("\n")
    gap = lines.index(f"{5:>6}\t{source[4]}") + 1
    assert lines[gap].strip() == "…"  # the cut is marked where it is
    assert re.match(rf"{len(shown)} of {len(KEYED.splitlines())} lines shown", lines[0])
    assert "read_file(path='store.py'" in lines[0]  # and says how to read on


ONE_PARAGRAPH = '''class Plain:
    """A docstring of one paragraph,
    over two lines."""

    x = 1
'''


def test_a_docstring_of_one_paragraph_is_shown_whole() -> None:
    text = ONE_PARAGRAPH.split("\n")
    assert list(docstring_details(text, 1, 5)) == []
    assert list(docstring_details(['class A:', '    """One line."""', '    y = 2'], 1, 3)) == []
    assert list(docstring_details(['class A:', '    y = 2', '    """not a docstring', '',
                                   '    """'], 1, 5)) == []


_LINE = st.text(st.sampled_from("abc xy.:#'\"()="), max_size=12)


@given(st.lists(_LINE, max_size=6), st.lists(_LINE, max_size=6),
       st.lists(_LINE, max_size=6), st.sampled_from(['"""', "'''", 'r"""']))
def test_only_lines_after_the_first_paragraph_are_left_out(
        summary: list[str], details: list[str], body: list[str], quotes: str) -> None:
    """Law: what is left out is a run of the docstring's lines starting at a blank line
    after its first line and ending at its closing quotes; the header, the first
    paragraph and the code after the docstring are never left out."""
    plain = [line.replace('"', "").replace("'", "") for line in summary + details]
    head = [f"    {quotes}Summary."]
    text = ["class A(Base):", *head, *(f"    {line}" for line in plain[:len(summary)]),
            "", *(f"    {line}" for line in plain[len(summary):]), '    """'[:4] + quotes[-3:],
            *(f"    {line}" for line in body)]
    end = len(text)
    cut = docstring_details(text, 1, end)
    closing = 2 + len(summary) + 1 + len(details) + 1
    first_blank = next(n for n in range(3, end + 1) if not text[n - 1].strip())
    assert list(cut) == list(range(first_blank, closing + 1))
