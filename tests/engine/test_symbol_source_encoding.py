"""A source file in the encoding it declares (Latin-1, PEP 263): its definitions keep their
accented names in the map, at the file's own line numbers, so a request naming them finds
them. A declared encoding that cannot be used, or none, changes nothing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols.source_encoding import as_utf8
from swetui.engine.symbols.symbol_map import SymbolMap

MENU = ('# -*- coding: latin-1 -*-\n\ndef café_crème(x):\n    """Café."""\n    return x\n\n'
        'class Maïs:\n    pass\n')


def _names(root: Path, rel: str) -> list[tuple[str, int]]:
    symbols = SymbolMap(root)
    symbols.build()
    return [(d.qualname, d.start) for d in symbols.index().by_file[rel].definitions]


def test_latin1_names_keep_their_accents_at_their_lines(tmp_path: Path) -> None:
    (tmp_path / "menu.py").write_bytes(MENU.encode("latin-1"))
    assert _names(tmp_path, "menu.py") == [("café_crème", 3), ("Maïs", 7)]


def test_an_unusable_declaration_changes_nothing(tmp_path: Path) -> None:
    for codec in ("rot13", "no-such-codec", "utf-16"):
        source = MENU.replace("latin-1", codec).encode("latin-1")
        (tmp_path / "menu.py").write_bytes(source)
        assert as_utf8(source) == source
        assert [line for _name, line in _names(tmp_path, "menu.py")] == [3, 7]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(text=st.text(st.characters(codec="latin-1")), codec=st.sampled_from(
    ["latin-1", "cp1252", "iso-8859-15", "utf-8"]))
def test_line_feeds_stay_where_they_were(text: str, codec: str) -> None:
    source = f"# coding: {codec}\n{text}".encode("latin-1")
    assert as_utf8(source).count(b"\n") == source.count(b"\n")



def test_an_encoding_that_can_move_a_line_feed_is_not_used() -> None:
    """`# coding: unicode_escape` turns a `\\n` escape into a line feed and eats an escaped
    one: decoded whole, the count of lines matched and the map's lines shifted."""
    for codec in ("unicode_escape", "punycode"):
        source = (f"# coding: {codec}\n".encode() + b"# caf\xe9 \\\n\nx = 1  # \\n\n"
                  b"def b():\n    pass\n")
        assert as_utf8(source) == source, codec
