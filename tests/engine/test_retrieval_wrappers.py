"""A function whose whole code hands its arguments to a function of the same name is a
wrapper: retrieval shows the function it calls, where the work is."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_spans import mapped_lines
from swetui.engine.retrieval_wrappers import wrapped
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap

SOURCE = {
    "records/_funcs.py": '''\
def asdict(inst, recurse=True, retain=False):
    """The record's fields as a dict."""
    out = {}
    for name, value in vars(inst).items():
        if recurse and hasattr(value, "__dict__"):
            value = asdict(value, recurse, retain)
        out[name] = value
    return out
''',
    "records/_next_gen.py": '''\
from records._funcs import asdict as _asdict


def asdict(inst, recurse=True):
    """Same as records.asdict, keeping collection types."""
    return _asdict(inst, recurse=recurse, retain=True)


def astuple(inst):
    """The record's fields as a tuple."""
    return tuple(build_tuple(inst))


def build_tuple(inst):
    return list(vars(inst).values())
''',
}


def _index(root: Path) -> SymbolIndex:
    for rel, text in SOURCE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    symbols = SymbolMap(root)
    symbols.build()
    return symbols.index()


def test_a_named_wrapper_gives_way_to_the_function_it_calls(tmp_path: Path) -> None:
    index = _index(tmp_path)
    found = retrieve(tmp_path, "asdict() on nested records: does it recurse into them?",
                     ContextEngine(), turn=1, symbols=index, semantic=None)
    assert [item.source.path for item in found.items] == ["records/_funcs.py"], found.summary
    assert "value = asdict(value, recurse, retain)" in found.items[0].content
    assert "retain=True" not in found.items[0].content  # the wrapper is not shown


def test_only_a_call_of_the_same_name_is_a_wrapper(tmp_path: Path) -> None:
    index = _index(tmp_path)
    rel = "records/_next_gen.py"
    lines = mapped_lines(tmp_path, index, rel)
    assert lines is not None
    by_name = {d.name: d for d in index.by_file[rel].definitions}
    target = wrapped(index, rel, by_name["asdict"], lines)
    assert target is not None and target[0] == "records/_funcs.py"
    assert wrapped(index, rel, by_name["astuple"], lines) is None  # it calls another name


def test_a_pathological_definition_is_no_wrapper_and_breaks_nothing(tmp_path: Path) -> None:
    (tmp_path / "deep.py").write_text(
        'def asdict(inst):\n    return asdict(' + "-" * 100_000 + '1)\n')
    symbols = SymbolMap(tmp_path)
    symbols.build()
    index = symbols.index()
    found = retrieve(tmp_path, "asdict() on a record?", ContextEngine(), turn=1,
                     symbols=index, semantic=None)
    assert [item.source.path for item in found.items] == ["deep.py"], found.summary
