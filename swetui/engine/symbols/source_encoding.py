"""A source file's bytes for the parser: in UTF-8, decoded by the encoding the file declares
(PEP 263's `# -*- coding: latin-1 -*-`, Ruby's `# encoding: …`) when it is not UTF-8
already. tree-sitter reads UTF-8 only: a Latin-1 `def café():` was mapped as `caf`.

An undeclared file that is not UTF-8 is left as it is (a guess would turn Shift-JIS or
cp1251 names into other letters). Only an encoding that keeps every line feed where it was
is used, decoded line by line, so the map's line numbers stay the file's."""

from __future__ import annotations

import re

COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)
"""PEP 263's magic comment (Python reads it on the first two lines)."""


def declared_encoding(source: bytes) -> str | None:
    """The encoding named on the first two lines, if any."""
    head = b"\n".join(source.split(b"\n", 2)[:2])
    found = COOKIE.search(head)
    return found.group(1).decode("ascii") if found else None


def as_utf8(source: bytes) -> bytes:
    """`source` in UTF-8 (unchanged when it is ASCII or UTF-8, or declares nothing usable)."""
    if source.isascii():
        return source
    try:
        source.decode("utf-8")
        return source
    except UnicodeDecodeError:
        pass
    declared = declared_encoding(source)
    if declared is None:
        return source
    try:
        if "\n# =()".encode(declared) != b"\n# =()":
            return source  # not ASCII's bytes for code (utf-16, unicode_escape, utf-7)
        # line by line: nothing a line holds can become a line feed and move the next
        lines = [line.decode(declared, "replace") for line in source.split(b"\n")]
    except (LookupError, ValueError, TypeError):  # unknown, or not a text encoding
        return source
    if any("\n" in line for line in lines):
        return source
    return "\n".join(lines).encode("utf-8", "replace")
