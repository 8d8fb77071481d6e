"""A function whose whole code hands its arguments to a function of the same name is a
wrapper: retrieval shows the function it calls, where the work is."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_spans import mapped_lines
from swetui.engine.retrieval_wrappers import wrapped
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap
from tests.engine.helpers import mapped_workspace

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
    return mapped_workspace(root, SOURCE)


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


def test_a_method_handing_its_call_to_an_object_is_not_a_wrapper(tmp_path: Path) -> None:
    """`CaseInsensitiveDict.get` returning `self._store.get(...)` calls a dict's method, not
    the module function `get` of the same name elsewhere: the named method is shown."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "api.py").write_text(
        'def get(url, params=None):\n    """Send a GET request."""\n'
        '    return request("get", url, params=params)\n\n\n'
        'def request(method, url, params=None):\n    return (method, url, params)\n')
    (tmp_path / "shop" / "structures.py").write_text(
        'class CaseInsensitiveDict:\n    """A dict whose keys ignore case."""\n\n'
        '    def __init__(self):\n        self._store = {}\n\n'
        '    def get(self, key, default=None):\n'
        '        return self._store.get(key.lower(), default)\n')
    symbols = SymbolMap(tmp_path)
    symbols.build()
    found = retrieve(tmp_path, "Why does CaseInsensitiveDict.get return None for a key I set?",
                     ContextEngine(), turn=1, symbols=symbols.index(), semantic=None)
    assert [item.source.path for item in found.items] == ["shop/structures.py"], found.summary
    assert "self._store.get(key.lower(), default)" in found.items[0].content
