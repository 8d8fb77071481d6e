"""Which definition a name in a request stands for, when the words could name several or none:
a dotted name names its last part or nothing (`index.html` is a file, not `index`), a word in
capitals alone is prose (`URL`) or a constant (`LIMIT`), a bare call (`evolve()`) is a
function's, a bare name defined in many places (`get`) names none of them, and a name a
named file defines at its top level is that file's."""

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


def test_a_name_the_named_file_defines_at_its_top_level_is_that_files(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {
        "tzlib/tz.py": '''\
def _make_gettz():
    class GettzFunc:
        def __call__(self, name=None):
            return self.nocache(name)

        def nocache(self, name=None):
            """Reads TZ, then /etc/localtime."""
            return name

        def __repr__(self):
            return "gettz"
    return GettzFunc()


gettz = _make_gettz()
''',
        "tzlib/zoneinfo.py": '''\
def gettz(name):
    """The bundled tarball's zone (deprecated)."""
    return name


class ZoneInfoFile:
    def __repr__(self):
        return "zones"
''',
    })

    def named(request: str) -> list[tuple[str, str]]:
        return [(hit.path, hit.definition.qualname)
                for hit in found_hits(index, request, near=["tzlib/tz.py"]).direct
                if hit.how == "named" and hit.definition is not None]
    # `gettz` is tz.py's instance there, not the other module's function of that name
    assert named("tzlib/tz.py - gettz() with no name: which file does it read?") \
        == [("tzlib/tz.py", "gettz")]
    # not naming the file, a bare call names the function
    assert _named(index, "gettz() with no name: which file does it read?") == ["gettz"]
    assert [hit.path for hit in found_hits(index, "what does gettz() read?").direct
            if hit.how == "named"] == ["tzlib/zoneinfo.py"]
    # a method of a class in the named file is no name of that module: `__repr__` is not
    # narrowed to tz.py's (both files' classes define one)
    assert sorted(path for path, _ in named("tzlib/tz.py: how does __repr__ avoid recursing?")) \
        == ["tzlib/tz.py", "tzlib/zoneinfo.py"]
