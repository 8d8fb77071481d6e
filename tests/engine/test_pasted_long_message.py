"""A pasted error whose message is long (several sentences written as one literal, of which
a program's user pastes the first) still finds the code raising it."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap

SOURCE = '''class StreamUsed(Exception):
    pass


def replay_body(stream):
    if stream.used:
        raise StreamUsed(
            "Tried to replay the upload body, but its stream was read already. "
            "For uploads, this can come from passing a generator as the body and then "
            "receiving a redirect or an authentication challenge that sends it again; "
            "for downloads, from iterating over the response content a second time, "
            "which the library cannot do because nothing of it was kept in memory."
        )
    return stream.rewind()


def unrelated_helper(value):
    return value
'''


def test_the_first_sentence_of_a_long_message_finds_where_it_is_raised(
        tmp_path: Path) -> None:
    (tmp_path / "streams.py").write_text(SOURCE, encoding="utf-8")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    request = ("I get this and do not know why:\n"
               "StreamUsed: Tried to replay the upload body, but its stream was read already.")
    result = retrieve(tmp_path, request, ContextEngine(), turn=1, symbols=symbols.index(),
                      semantic=None)
    shown = "\n".join(item.content for item in result.items)
    assert "def replay_body" in shown and "unrelated_helper" not in shown
    assert any("raises the quoted message" in item.content for item in result.items)
