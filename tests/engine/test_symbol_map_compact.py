"""The symbol map keeps its definitions' words and its files' literals in compact forms
(`compact.StemSet`, `compact.Literals`), so a restart of a large workspace does not take
several times the memory of its source: each form answers exactly as the Python set or
list it replaces, and a map restored from its cache answers look-ups exactly like the map
built from the files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import swetui.engine
from swetui.engine.retrieval_spans import find_hits, symbol_spans
from swetui.engine.symbols import cache
from swetui.engine.symbols.compact import Literals, References, StemSet, shared_line
from swetui.engine.symbols.outline import outline
from swetui.engine.symbols.symbol_map import SymbolMap

WORDS = st.text(alphabet="abcé_", max_size=4)
SOURCE = Path(swetui.engine.__file__).parent
REQUESTS = (
    "How does `SymbolMap.update` patch the index?",
    "where are symlinked cache folders refused?",
    "RuntimeError: could not parse some.py",
    "which definitions does an outline list first for each file?",
    "Why is the collector paused while the map builds?",
)


@given(items=st.lists(WORDS, max_size=12), other=st.sets(WORDS, max_size=6), probe=WORDS)
def test_a_stem_set_answers_as_a_frozenset(items: list[str], other: set[str],
                                            probe: str) -> None:
    compact, plain = StemSet(items), frozenset(items)
    assert (probe in compact) == (probe in plain)
    assert len(compact) == len(plain) and set(compact) == plain
    assert compact == plain and plain == compact and compact == set(items)
    assert (compact != other) == (plain != other)
    assert compact - other == plain - other and other - compact == other - plain
    assert compact | other == plain | other and other | compact == other | plain
    assert compact & other == plain & other and other & compact == other & plain
    assert (compact <= other) == (plain <= other)
    assert compact.isdisjoint(other) == plain.isdisjoint(other)
    grown = set(other)
    grown |= compact
    assert grown == other | plain and isinstance(grown, set)


@given(st.lists(st.tuples(st.integers(0, 2**32 - 1), st.lists(WORDS, max_size=3)), max_size=8))
def test_packed_literals_read_back_as_the_list(literals: list[tuple[int, list[str]]]) -> None:
    expected = [(line, tuple(parts)) for line, parts in literals]
    packed = Literals(literals)
    assert list(packed) == expected and len(packed) == len(expected)
    assert [packed[n] for n in range(len(expected))] == expected
    assert packed == literals and packed == Literals(expected)
    if expected:
        assert packed[-1] == expected[-1]
    lines, counts, parts = packed.columns()  # as the cache stores them: parts joined
    assert Literals.from_columns(lines, counts, map(len, parts), "".join(parts)) == packed
    with pytest.raises(ValueError):  # a damaged row's columns that do not fit are refused
        Literals.from_columns(lines, counts, map(len, parts), "".join(parts) + "x")
    last = max([line for line, _parts in expected] + [1])
    if min(lines, default=1) >= 1:  # as a parse gives them: lines from 1
        assert Literals.from_packed(packed.packed, 10**6, last) == packed  # a restart's read
    if expected and min(lines) >= 1:
        with pytest.raises(ValueError):  # a line past the file's is refused
            Literals.from_packed(packed.packed, 10**6, last - 1)
        with pytest.raises(ValueError):  # so is what unpacks to more than the file allows
            Literals.from_packed(packed.packed, 8, last)


@pytest.mark.parametrize("data", [b"not zlib", zlib.compress(b"\x01\x00\x00\x00"),
                                  zlib.compress(b"\x01\x00\x00\x00\x01\x00\x00\x00")
                                  + b"more", zlib.compress(bytes(8) + b"text")],
                         ids=["garbage", "too-short", "trailing", "text-without-parts"])
def test_packed_literals_that_do_not_unpack_are_refused(data: bytes) -> None:
    """A shipped cache row's literals must unpack whole, to columns that fit together."""
    with pytest.raises(ValueError):
        Literals.from_packed(data, 10**6, 10**6)


def test_packed_literals_are_a_fraction_of_their_text() -> None:
    """What the map keeps of a file's literals is compressed: a file of many messages keeps
    less than half their text (what a 10,000-file workspace's million literals cost)."""
    literals = [(n, (f"could not open the ledger file number {n}", "retrying"))
                for n in range(1, 2_000)]
    text = sum(len(part) for _line, parts in literals for part in parts)
    assert len(Literals(literals).packed) < text / 2


@given(st.dictionaries(WORDS, st.integers(1, 2**32 - 1), max_size=12), WORDS)
def test_packed_references_answer_as_the_dict(counts: dict[str, int], probe: str) -> None:
    packed = References(counts)
    assert dict(packed.items()) == counts and list(packed) == list(counts)
    assert len(packed) == len(counts) and sorted(packed.values()) == sorted(counts.values())
    assert packed == counts and packed == References(counts.items())
    assert (probe in packed) == (probe in counts)
    assert packed.get(probe) == counts.get(probe)
    assert References.from_columns(list(packed), packed.values()) == packed  # as the cache reads
    if counts:  # a row naming one name twice was not written by the map
        with pytest.raises(ValueError):
            References.from_columns([*packed, next(iter(packed))], [*packed.values(), 1])


@given(st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans()))
def test_a_shared_line_is_the_same_number(value: float) -> None:
    shared = shared_line(value)
    assert shared == value and type(shared) is type(value)
    if type(value) is int and 256 < value <= 2_000_000:  # one object per line number
        assert shared_line(int(str(value))) is shared


def _workspace(tmp_path: Path) -> Path:
    """A copy of swetui's engine: real definitions, docstrings and message literals."""
    root = tmp_path / "ws"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _answers(symbols: SymbolMap) -> list[object]:
    """What look-ups see (file ranks rounded: a restart reads the files in the cache's order,
    so PageRank adds the same numbers in another order)."""
    index = symbols.index()
    return [outline(index), sorted(index.by_name), index.document_frequency,
            index.referenced, {rel: round(rank, 12) for rel, rank in index.file_rank.items()},
            *([(span.path, span.lines, text) for span, text in
               symbol_spans(symbols.root, index, request, find_hits(index, request))]
              for request in REQUESTS)]


def test_a_restored_map_answers_like_the_built_one(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    stored = tmp_path / "cache" / cache.FILE_NAME
    built = SymbolMap(root, cache_path=stored)
    built.build()
    restored = SymbolMap(root, cache_path=stored)
    restored.build()
    assert restored.files == built.files
    answers = _answers(built)
    assert any(answers[5:]), "the requests should find something in swetui's engine"
    assert _answers(restored) == answers


RESTORE_AND_MEASURE = """
import sys, tracemalloc
from pathlib import Path
from swetui.engine.symbols.symbol_map import SymbolMap
tracemalloc.start()
restored = SymbolMap(Path(sys.argv[1]), cache_path=Path(sys.argv[2]))
restored.build()
restored.index()
held, _peak = tracemalloc.get_traced_memory()
print(len(restored.files), held)
"""


def test_a_restored_map_takes_less_memory_than_four_times_its_source(tmp_path: Path) -> None:
    """A map of sets and lists took 7.5 bytes per byte of source (780 MB for a 10,000-file,
    120 MB workspace), the compact forms 2.9 (the bar leaves room for other Pythons'
    object sizes); measured with tracemalloc, not by the map, in a process of its own
    (in the suite's worker, threads left by earlier tests allocate while it is traced)."""
    root = _workspace(tmp_path)
    source = sum(path.stat().st_size for path in root.rglob("*.py"))
    stored = tmp_path / "cache" / cache.FILE_NAME
    SymbolMap(root, cache_path=stored).build()
    child = subprocess.run([sys.executable, "-c", RESTORE_AND_MEASURE, str(root), str(stored)],
                           capture_output=True, text=True, check=True)
    files, held = map(int, child.stdout.split())
    assert files
    assert held < 4 * source, f"{held / source:.1f} bytes of map per byte of source"
