"""A long file the request names, when what the request asks found its answer in another
file, is sent as its likeliest places (a shortlist of its own definitions), not whole or as
its first 1,000 lines: none of those thousands of tokens were asked for."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind
from swetui.engine.retrieval import WHOLE_NAMED_LINES, retrieve
from swetui.engine.symbols.symbol_map import SymbolMap

TZ = '''\
def tzlocal_name():
    """The local zone's name, read from the TZ environment variable when it is set."""
    return environ.get("TZ")
''' + "".join(f'''

def offset_{n}(value):
    """Format offset number {n} for display."""
    return str(value).rjust({n})
''' for n in range(40))
ZONEINFO = '''\
def gettz(name=None):
    """Deprecated: a zone from the bundled tarball."""
    return _CLASS_ZONE_INSTANCE.get(name)
'''
REQUEST = "pkg/tz.py - what does gettz() read when TZ is not set in the environment?"


def _found(root: Path):  # type: ignore[no-untyped-def]
    (root / "pkg").mkdir()
    (root / "pkg" / "tz.py").write_text(TZ)
    (root / "pkg" / "zoneinfo.py").write_text(ZONEINFO)
    assert TZ.count("\n") > WHOLE_NAMED_LINES
    symbols = SymbolMap(root)
    symbols.build()
    return retrieve(root, REQUEST, ContextEngine(), turn=1, symbols=symbols.index(),
                    semantic=None)


def test_a_named_long_file_the_answer_is_not_in_is_sent_as_its_likeliest_places(
        tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert not [item for item in found.items if item.kind is ItemKind.FILE], found.summary
    [places] = [item for item in found.items if item.kind is ItemKind.SHORTLIST]
    assert "pkg/tz.py:1-3: def tzlocal_name" in places.content  # the place its words say
    assert "offset_39" not in "\n".join(item.content for item in found.items)
    assert any(item.kind is ItemKind.SPAN and item.source.path == "pkg/zoneinfo.py"
               for item in found.items)  # what the name resolved to, as before
    assert "pkg/tz.py: its likeliest places, not its" in found.summary


def test_a_named_long_file_is_sent_as_before_when_the_request_finds_nothing(
        tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "tz.py").write_text(TZ)
    symbols = SymbolMap(tmp_path)
    symbols.build()
    found = retrieve(tmp_path, "read pkg/tz.py", ContextEngine(), turn=1,
                     symbols=symbols.index(), semantic=None)
    assert [item.kind for item in found.items] == [ItemKind.FILE]
