"""What retrieval attaches for a hit is the part the request is about: a method of a long
class with the class's header line (its other members by their first line), not the class;
the definition found in a long file the request names, not the whole file; a long
definition beside the hit by its first line and the lines saying the request's words; and
the block always says which lines of how many it shows and how to read on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind
from swetui.engine.retrieval import RetrievalResult, retrieve
from swetui.engine.retrieval_members import focus_members, member_lines
from swetui.engine.spans import WORD_LINES, Span, by_words, render, worded_lines
from swetui.engine.symbols.extract import extract
from swetui.engine.symbols.symbol_map import SymbolMap


def _method(name: str, body: list[str]) -> str:
    return f"    def {name}(self, ctx, name):\n" + "".join(f"        {line}\n" for line in body)


def _filler(count: int) -> list[str]:
    return [f"step_{n} = self.helper_{n}(ctx)" for n in range(count)] + ["return None"]


COLLECTION = (
    "class CommandCollection(MultiCommand):\n"
    '    """A multi command that merges several multi commands."""\n\n'
    + _method("__init__", ["self.sources = []", *_filler(8)]) + "\n"
    + _method("add_source", ["self.sources.append(ctx)", *_filler(6)]) + "\n"
    + _method("get_command", [
        "# Look the command name up in each source in turn; the first one wins.",
        "for source in self.sources:",
        "    found = source.get_command(ctx, name)",
        "    if found is not None:",
        "        return found", *_filler(4)]) + "\n"
    + _method("list_commands", ["listed = set()", *_filler(8)]) + "\n"
    + _method("format_usage", ["formatter = ctx.formatter", *_filler(8)])
)


def ask(root: Path, text: str) -> RetrievalResult:
    symbols = SymbolMap(root)
    symbols.build()
    return retrieve(root, text, ContextEngine(), turn=1, symbols=symbols.index(),
                    semantic=None)


def numbered(content: str) -> dict[int, str]:
    found = {}
    for line in content.splitlines()[1:]:
        match = re.match(r"\s*(\d+)\t(.*)$", line)
        if match:
            found[int(match.group(1))] = match.group(2)
    return found


def test_a_method_of_a_long_class_comes_with_the_class_header_not_the_class(
        tmp_path: Path) -> None:
    (tmp_path / "core.py").write_text(COLLECTION)
    result = ask(tmp_path, "When two multi commands of a CommandCollection both have a "
                           "command, which one wins?")
    [span] = [item for item in result.items if item.kind is ItemKind.SPAN]
    shown = numbered(span.content)
    text = "\n".join(shown.values())
    assert "class CommandCollection(MultiCommand):" in text
    assert "found = source.get_command(ctx, name)" in text  # the method, whole
    assert "def list_commands(self, ctx, name):" in text  # the others by their first line
    assert "listed = set()" not in text and "self.sources.append(ctx)" not in text
    header = span.content.splitlines()[0]
    assert "shown: its get_command" in header and "read_file" in header
    assert f"{len(shown)} of {len(COLLECTION.splitlines())} lines shown" in header


def test_a_request_saying_nothing_beyond_a_class_name_gets_the_class(tmp_path: Path) -> None:
    (tmp_path / "core.py").write_text(COLLECTION)
    [span] = [item for item in ask(tmp_path, "Show me CommandCollection").items
              if item.kind is ItemKind.SPAN]
    assert "shown: its" not in span.content.splitlines()[0]


def test_a_long_named_file_sends_what_the_request_asks_about_not_the_whole_file(
        tmp_path: Path) -> None:
    lines = [f"def helper_{n}(value):\n    return value + {n}\n\n" for n in range(100)]
    lines.insert(50, "def drop_dot_segments(path):\n"
                     "    # Remove '.' and '..' segments from a path.\n"
                     "    return [part for part in path.split('/') if part not in ('.', '..')]\n\n")
    source = "".join(lines)
    (tmp_path / "urlparse.py").write_text(source)
    result = ask(tmp_path, "In urlparse.py, where are dot segments dropped from a path?")
    assert not [item for item in result.items if item.kind is ItemKind.FILE]
    [span] = [item for item in result.items if item.kind is ItemKind.SPAN]
    assert "def drop_dot_segments(path):" in "\n".join(numbered(span.content).values())
    total = len(source.splitlines())
    assert f"of {total:,} lines shown" in span.content.splitlines()[0]
    assert "read_file(path='urlparse.py'" in span.content.splitlines()[0]


def test_a_short_named_file_is_still_read_whole(tmp_path: Path) -> None:
    source = ("def drop_dot_segments(path):\n"
              "    # Remove '.' and '..' segments from a path.\n"
              "    return path\n\n\ndef other():\n    return 1\n")
    (tmp_path / "urlparse.py").write_text(source)
    result = ask(tmp_path, "In urlparse.py, where are dot segments dropped from a path?")
    [item] = [item for item in result.items if item.kind is ItemKind.FILE]
    assert item.content == source


_NAMES = st.lists(st.sampled_from(["open", "close", "read", "write", "flush", "seek",
                                   "parse", "render", "merge", "split"]),
                  min_size=1, max_size=8, unique=True)


@settings(max_examples=60, deadline=None)
@given(names=_NAMES, sizes=st.lists(st.integers(1, 30), min_size=8, max_size=8),
       decorated=st.lists(st.booleans(), min_size=8, max_size=8),
       picks=st.sets(st.integers(0, 7), max_size=3), gap=st.integers(0, 3))
def test_a_class_shown_by_members_is_true_to_its_file_and_counts_what_it_shows(
        names: list[str], sizes: list[int], decorated: list[bool], picks: set[int],
        gap: int) -> None:
    source = "import os\n" * gap + "class Stream:\n    '''A stream.'''\n\n" + "".join(
        ("    @property\n" if decorated[n] else "") + _method(name, _filler(sizes[n]))
        for n, name in enumerate(names)) + "\nTAIL = 1\n"
    text = source.splitlines()
    symbols = extract("stream.py", source.encode(), "python")
    cls = next(d for d in symbols.definitions if d.qualname == "Stream")
    methods = [d for d in symbols.definitions if d.qualname.startswith("Stream.")]
    picked = [methods[n] for n in sorted(picks) if n < len(methods)] or methods[:1]
    chosen, note = member_lines(symbols, cls, picked, text)
    assert all(cls.start <= n <= cls.end for n in chosen)  # inside the class, in the file
    block = render(Span("stream.py", chosen, [note]), text)
    shown = numbered(block)
    assert list(shown) == sorted(set(chosen))  # in order, none twice
    assert all(text[n - 1] == line for n, line in shown.items())
    assert f"{len(shown):,} of {len(text):,} lines shown" in block.splitlines()[0]
    for member in picked:  # the picked members whole, their decorators too
        assert set(range(member.start, member.end + 1)) <= set(shown)
    for member in methods:  # every other member at least by its first line
        assert member.start in shown


def test_members_are_picked_by_the_request_words_beyond_the_class_name(
        tmp_path: Path) -> None:
    (tmp_path / "core.py").write_text(COLLECTION)
    symbols = SymbolMap(tmp_path)
    symbols.build()
    index = symbols.index()
    [(_rel, cls)] = index.by_name["CommandCollection"]
    picked = focus_members(index, "core.py", cls, "How does CommandCollection format its "
                                                 "usage line?")
    assert [m.name for m in picked] == ["format_usage"]
    assert focus_members(index, "core.py", cls, "What is CommandCollection?") == []


@pytest.mark.parametrize("filler", [40, 12])
def test_a_definition_beside_the_hit_shows_its_first_line_and_the_asked_words(
        tmp_path: Path, filler: int) -> None:
    """Whatever its size (a 17-line one too): the answer is shown whole, what it uses by
    the lines that matter."""
    helper = ("def decode_chunked_body(stream):\n"
              "    parts = []\n"
              + "".join(f"    parts.append(stream.read_{n}())\n" for n in range(filler))
              + "    # the trailer after the last chunk is dropped here\n"
              + "    trailer = stream.read_trailer()\n"
              + "    return parts\n")
    source = ("def read_body(stream):\n"
              "    return decode_chunked_body(stream)\n\n\n" + helper)
    (tmp_path / "body.py").write_text(source)
    result = ask(tmp_path, "How does `read_body` handle the trailer after the last chunk?")
    [span] = [item for item in result.items if item.kind is ItemKind.SPAN]
    shown = numbered(span.content)
    text = "\n".join(shown.values())
    assert "return decode_chunked_body(stream)" in text  # the hit, whole
    assert "def decode_chunked_body(stream):" in text  # what it uses: its first line
    assert "trailer = stream.read_trailer()" in text  # and where it says the words
    assert "parts.append(stream.read_5())" not in text
    size = len(helper.splitlines())
    header = span.content.splitlines()[0]
    inside = [n for n in shown if n > 4]  # the helper starts at line 5
    assert f"{len(inside)} of its {size} lines" in header
    assert "read_file(path='body.py'" in header
    assert f"{len(shown)} of {len(source.splitlines())} lines shown" in header


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 80), said=st.sets(st.integers(0, 79), max_size=20),
       decorated=st.booleans(), gap=st.integers(0, 3))
def test_a_definition_shown_by_its_words_is_inside_it_and_counts_what_it_shows(
        size: int, said: set[int], decorated: bool, gap: int) -> None:
    body = [f"    value = asked_word_{n}" if n in said else f"    value = other_{n}"
            for n in range(size)]
    source = "x = 1\n" * gap + ("@cache\n" if decorated else "") + "def helper():\n" \
        + "\n".join(body) + "\n"
    text = source.splitlines()
    symbols = extract("helper.py", source.encode(), "python")
    [helper] = [d for d in symbols.definitions if d.name == "helper"]
    chosen = worded_lines(symbols, helper, text,
                          by_words(text, lambda stem: 1.0 if stem.startswith("ask") else 0.0))
    first = gap + 1
    assert chosen[0] == first and helper.start in chosen  # its first line, decorators too
    assert all(first <= n <= helper.end for n in chosen)
    assert len([n for n in chosen if n > helper.start]) <= WORD_LINES
    assert chosen == sorted(set(chosen))
    if any(n < size for n in said):
        assert any("asked_word" in text[n - 1] for n in chosen)
    header = render(Span("helper.py", chosen, ["why"]), text).splitlines()[0]
    assert (f"{len(chosen):,} of {len(text):,} lines shown" in header
            if len(chosen) < len(text) else f"all {len(text):,} lines" in header)


def test_a_place_raising_the_pasted_error_far_from_the_request_is_not_attached(
        tmp_path: Path) -> None:
    (tmp_path / "errors.py").write_text(
        "class NoSuchWidget(Exception):\n"
        "    def __init__(self, name):\n"
        "        super().__init__(f'No such widget named: {name}')\n")
    (tmp_path / "widgets.py").write_text(
        "from errors import NoSuchWidget\n\n\n"
        "def find_widget_by_label(label):\n"
        "    # Look a widget up by its label.\n"
        "    raise NoSuchWidget(label)\n")
    (tmp_path / "cache.py").write_text(
        "from errors import NoSuchWidget\n\n\n"
        "def drop_cached_entries():\n"
        "    raise NoSuchWidget('cache')\n")
    result = ask(tmp_path, "Error: No such widget named: --side-panel\n"
                           "I asked for a widget by its label.")
    paths = [item.source.path for item in result.items if item.kind is ItemKind.SPAN]
    assert "widgets.py" in paths  # where the request's words point
    assert "cache.py" not in paths  # the doubtful extra block
