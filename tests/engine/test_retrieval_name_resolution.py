"""Which definition a name in a request stands for, when the words could name several or none:
a dotted name names its last part or nothing (`index.html` is a file, not `index`), a word in
capitals alone is prose (`URL`) or a constant (`LIMIT`), a bare call (`evolve()`) is a
function's, and a bare name defined in many places (`get`) names none of them."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.retrieval_spans import found_hits
from swetui.engine.symbols.symbol_map import SymbolIndex
from tests.engine.helpers import mapped_workspace

SOURCE = {
    "shop/views.py": '''\
def index(request):
    """The shop's front page."""
    return render(request, "front")
''',
    "shop/urls.py": '''\
LIMIT = 20
"""Redirects followed at most."""


class URL:
    """A parsed address."""

    def __init__(self, text):
        self.text = text


class QueryParams:
    def set(self, key, value):
        """A copy with key set to value (the params are immutable)."""
        return QueryParams()


class Client:
    @property
    def params(self):
        return self._params
''',
    "shop/records.py": '''\
class Field:
    def evolve(self, **changes):
        return Field()


def evolve(inst, **changes):
    """A copy of inst with changes applied."""
    return type(inst)(**changes)
''',
    "shop/maps.py": "".join(f'''
class Store{n}:
    def get(self, key):
        return self.items[key]
''' for n in range(4)),
}


def _index(root: Path) -> SymbolIndex:
    return mapped_workspace(root, SOURCE)


def _named(index: SymbolIndex, request: str) -> list[str]:
    return [hit.definition.qualname for hit in found_hits(index, request).direct
            if hit.how == "named" and hit.definition is not None]


def test_a_dotted_name_names_its_last_part_or_nothing(tmp_path: Path) -> None:
    index = _index(tmp_path)
    assert _named(index, "Which view renders 'index.html' for the front page?") == []
    assert _named(index, "params.set('page', 2) does not change anything, why?") == []
    assert _named(index, "what does QueryParams.set return?") == ["QueryParams.set"]


def test_a_word_in_capitals_alone_is_prose_unless_written_as_code(tmp_path: Path) -> None:
    index = _index(tmp_path)
    assert _named(index, "When a redirect has no host, how is the next URL worked out?") == []
    assert _named(index, "How does `URL` keep the text it was given?") == ["URL"]
    # a constant's name is written in capitals: it is meant
    assert _named(index, "Who reads LIMIT when following redirects?") == ["LIMIT"]


def test_a_bare_call_names_the_function_not_a_method(tmp_path: Path) -> None:
    index = _index(tmp_path)
    assert _named(index, "evolve() on a record: what does the copy keep?") == ["evolve"]
    # written as a name, not a call, both definitions are candidates
    assert sorted(_named(index, "what does `evolve` copy?")) == ["Field.evolve", "evolve"]


def test_a_bare_name_defined_in_many_places_names_none(tmp_path: Path) -> None:
    index = _index(tmp_path)
    assert _named(index, "Which store answers my get() call first?") == []
    assert _named(index, "what does Store2.get return for a missing key?") == ["Store2.get"]
