"""What the sentence encoder reads of a definition: its qualified name in words, its
signature, and the comments and docstring at its head — how a developer would describe it,
not its whole body."""

from __future__ import annotations

import hashlib
import re

from swetui.engine.symbols.extract import Definition
from swetui.secrets import redact

HEAD_LINES = 12
"""Lines read from a definition's first line on (signature and docstring)."""
MAX_CHARS = 480
"""Characters kept (about the encoder's 128 tokens)."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPACE = re.compile(r"\s+")
_QUOTES = re.compile(r'^[rRbBuU]?("""|\'\'\'|"|\')|("""|\'\'\')$')


def words_of(identifier: str) -> str:
    """`_build_redirect_request` → `build redirect request`, `HTTPTransport` → `HTTP
    Transport`."""
    spaced = _CAMEL.sub(" ", identifier.replace("_", " "))
    return _SPACE.sub(" ", spaced).strip()


def definition_text(definition: Definition, lines: list[str]) -> str:
    """The text to embed for `definition` from its file's `lines`: the qualified name in
    words, the comment lines just above it, then its first lines (signature, docstring) with
    the docstring's quotes and the lines' indentation taken out."""
    name = " . ".join(words_of(part) for part in definition.qualname.split("."))
    above: list[str] = []
    number = min(definition.start, len(lines) + 1) - 2  # a file cut short since it was mapped
    while number >= 0 and len(above) < 4 and lines[number].strip().startswith(("#", "//")):
        above.insert(0, lines[number].strip().lstrip("#/ "))
        number -= 1
    head = [_QUOTES.sub("", line.strip())
            for line in lines[definition.start - 1:min(definition.end,
                                                         definition.start - 1 + HEAD_LINES)]]
    text = " ".join([name + ":", *above, *(line for line in head if line)])
    # Redacted before the cut: a key across MAX_CHARS would be embedded as its start.
    return redact(_SPACE.sub(" ", text))[:MAX_CHARS]  # nor a secret's vector on disk


def text_key(text: str) -> bytes:
    """The key a text's vector is kept under on disk (its SHA-256: the text is not stored)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
