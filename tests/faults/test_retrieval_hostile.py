"""Retrieval and the symbol map against what a hostile or careless workspace does (found
by attacking this session's changes): a file cut short after it was mapped gives no
traceback; a held key never reaches the map's cache, the embedded text or retrieval's notes
in pieces or whole."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.semantic_text import MAX_CHARS, definition_text
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.secrets import STORE

KEY = "sk-ant-api03-Zebraquokkaxylophone-Wombatfjord"
"""A held key whose pieces are words (as real keys' letter runs are)."""


@pytest.fixture
def held_key() -> Iterator[str]:
    STORE.load({"ANTHROPIC_API_KEY": KEY})
    yield KEY
    STORE.clear()


def test_a_held_key_in_a_docstring_leaves_no_pieces_in_the_map_cache(
        tmp_path: Path, held_key: str) -> None:
    """MEDIUM: the map stores a docstring's words; a held key written in a docstring or
    comment is stored as its lower-cased pieces ('zebraquokkaxylophon', 'wombatfjord'),
    redaction matching only the whole value (literals are redacted, doc words are not)."""
    (tmp_path / "client.py").write_text(textwrap.dedent(f'''\
        def connect_staging(token=None):
            """Connect to staging with the key {held_key}."""
            return token
        '''))
    path = tmp_path / ".swetui" / "symbols" / "map.sqlite"
    symbols = SymbolMap(tmp_path, cache_path=path)
    symbols.build()
    symbols.save()
    stored = path.read_bytes().lower()
    assert b"connect" in stored  # the map was written
    assert b"zebraquokka" not in stored and b"wombatfjord" not in stored, \
        "pieces of a held key are in .swetui/symbols/map.sqlite"


def test_a_held_key_cut_at_the_embedded_texts_end_is_still_redacted(held_key: str) -> None:
    """LOW: definition_text cuts to MAX_CHARS before redacting, so a key straddling the cut
    is embedded as its first characters ('sk-ant-api03-Zebra…'), which no longer match."""
    prefix = "x" * (MAX_CHARS - 30)
    lines = ["def f():", f'    """{prefix} {held_key} tail."""', "    pass"]
    definition = Definition(name="f", qualname="f", kind="function", start=1, end=3,
                            doc=set(), body=set(), refs=set(), bases=[])
    text = definition_text(definition, lines)
    assert held_key[:16] not in text, f"a held key's start is embedded: {text[-40:]!r}"


def test_a_held_key_in_the_request_is_not_echoed_by_retrievals_note(
        tmp_path: Path, held_key: str) -> None:
    """LOW-MEDIUM: `ANTHROPIC_API_KEY=… swetui run 'find "<the key>" in the code'` prints
    "added to this request's context: nothing to retrieve (grep '<the key>': no matches…)"
    on stdout, the key in clear (the session log and the request carry it redacted)."""
    (tmp_path / "app.py").write_text("def handler():\n    pass\n")
    result = retrieve(tmp_path, f'find "{held_key}" in the code', ContextEngine(), turn=1)
    assert held_key not in result.summary and not any(held_key in n for n in result.notes), \
        result.summary


def test_a_file_cut_short_after_mapping_gives_no_traceback(tmp_path: Path) -> None:
    """HIGH: the user cuts a class out of a file and asks about it before the watcher
    updates the map (or a shipped map.sqlite row matching the file's size and mtime, as a
    tar/zip archive keeps them, names lines past its end): retrieval raises IndexError in
    spans._decorators and the turn dies with a traceback (`swetui run` exits 1)."""
    (tmp_path / "mailer.py").write_text("import os\n" + "\n" * 8 + "class InvoiceMailer:\n"
                                        "    def send_overdue_reminder(self):\n"
                                        "        return 1\n")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    index = symbols.index()
    (tmp_path / "mailer.py").write_text("import os\n")
    result = retrieve(tmp_path, "how does InvoiceMailer send the overdue reminder?",
                      ContextEngine(), turn=1, symbols=index, semantic=None)
    assert all("InvoiceMailer" not in item.content for item in result.items)
