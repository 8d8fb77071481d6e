"""Text from outside (the model, tools, file names, servers) made safe to print.

A terminal obeys control characters wherever they come from: ESC starts sequences that
clear the screen, set the window title or write the clipboard (OSC 52); C1 bytes such as
U+009B are CSI on some terminals; BEL, backspace and carriage return redraw what was
printed. `visible` turns every such character into a visible escape (`\\x1b`), so nothing
reaches the terminal raw and the user still sees that something was there.
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = "\u202a-\u202e\u2066-\u2069"
"""Embeddings, overrides and isolates: they reorder what is shown (a file name that reads
`txt.exe` as `exe.txt`)."""
_LINES = "\u2028\u2029"
_UNSAFE = re.compile(f"\r\n?|[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_LINES}]")
_UNSAFE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_LINES}]")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _replace(match: re.Match[str]) -> str:
    found = match.group(0)
    if found == "\r\n":
        return "\n"
    return _escape(found)


def visible(text: str, *, newlines: bool = True, format_chars: bool = False) -> str:
    """`text` with every control character shown as an escape (`\\x1b`, `\\x9b`, `\\u202e`).

    With `newlines`, line feeds and tabs are kept and CRLF becomes LF (a lone CR, which
    would overwrite the line, is shown as `\\x0d`); without, they are escaped too, for a
    value that must stay on one line. `format_chars` also escapes every other invisible
    format character (zero-width joiners included)."""
    if format_chars:
        return "".join(_escape(char) if unicodedata.category(char) in
                       ("Cc", "Cf", "Zl", "Zp") else char for char in text)
    pattern = _UNSAFE if newlines else _UNSAFE_LINE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_replace, text)


def one_line(text: str) -> str:
    """`visible(text)` kept on one line (a name, a summary, an argument)."""
    return visible(text, newlines=False)


_CONTROLS = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{_BIDI}]")
"""What a drawn line never needs: every control but the line feed, and bidi overrides."""


def has_controls(text: str) -> bool:
    """Whether `text` holds a character `without_controls` removes."""
    return _CONTROLS.search(text) is not None


def without_controls(text: str) -> str:
    """`text` without control characters (tabs included; line feeds kept) or bidi overrides:
    the last line of defence where an escape would change a computed width (they take no
    cells)."""
    return _CONTROLS.sub("", text) if _CONTROLS.search(text) else text
