"""A class's docstring in a span: its first paragraph says what the class is; the rest
(usage examples, parameters, version notes) is for a reader of the documentation, and a
span showing the class for its code leaves it out (the numbered lines and the `…` gap say
so; `read_file` shows it). Python only: other languages document a class before it."""

from __future__ import annotations

import re

_OPENING = re.compile(r"^\s*[rRuUbB]{0,2}(\"\"\"|''')")


def _header_end(text: list[str], start: int, end: int) -> int | None:
    """The line ending the `class …:` header that starts at `start` (bases may span lines)."""
    for number in range(start, end + 1):
        code = text[number - 1].split("#", 1)[0].rstrip()
        if code.endswith(":"):
            return number
    return None


def docstring_details(text: list[str], start: int, end: int) -> range:
    """The lines of the docstring of the class at `start`-`end` (1-based, `start` its
    `class` line) past its first paragraph: from the first blank line inside it to its
    closing quotes. Empty when it has none, or one paragraph only."""
    header = _header_end(text, start, end)
    if header is None:
        return range(0)
    first = next((n for n in range(header + 1, end + 1) if text[n - 1].strip()), None)
    if first is None:
        return range(0)
    opened = _OPENING.match(text[first - 1])
    if opened is None:
        return range(0)
    quotes = opened.group(1)
    if quotes in text[first - 1][opened.end():]:
        return range(0)  # a docstring on one line
    for number in range(first + 1, end + 1):
        line = text[number - 1]
        if quotes in line:
            return range(0)  # closed before any blank line: one paragraph
        if not line.strip():
            close = next((n for n in range(number + 1, end + 1) if quotes in text[n - 1]),
                         None)
            return range(number, close + 1) if close is not None else range(0)
    return range(0)
