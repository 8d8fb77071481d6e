"""The stems of identifiers and of the words in literals and comments, remembered per word:
a workspace repeats the same few thousand names and words in every file, and working a
word's stems out again each time cost a third of the map's build. The stems are kept as
tuples (a one-stem frozenset takes 216 bytes, the tuple 48: the memos were half of a cold
build's memory), and `forget` drops them when a build ends."""

from __future__ import annotations

import re

from swetui.engine.symbols.words import prose_stems, stems_of_identifier

MAX_REMEMBERED = 100_000
"""Words remembered before the memory is cleared (about 15 MB at most each)."""

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A word of prose as `prose_stems` splits it (a test checks the two agree)."""

_identifiers: dict[str, tuple[str, ...]] = {}
_words: dict[str, tuple[str, ...]] = {}


def identifier_stems(identifier: str) -> tuple[str, ...]:
    """The members of `stems_of_identifier(identifier)`, remembered."""
    found = _identifiers.get(identifier)
    if found is None:
        if len(_identifiers) >= MAX_REMEMBERED:
            _identifiers.clear()
        found = _identifiers[identifier] = tuple(stems_of_identifier(identifier))
    return found


def text_stems(text: str) -> set[str]:
    """The set of `prose_stems(text)`, worked out word by word (each word's stems do not
    depend on its neighbours) and remembered per word."""
    found: set[str] = set()
    for word in _WORD.findall(text):
        stems = _words.get(word)
        if stems is None:
            if len(_words) >= MAX_REMEMBERED:
                _words.clear()
            stems = _words[word] = tuple(prose_stems(word))
        found.update(stems)
    return found


def forget() -> None:
    """Drop what is remembered (a build ended: a change reads a few files at most)."""
    _identifiers.clear()
    _words.clear()
