"""Text from a model, a tool, a file name or a server made safe to print on a terminal.

A terminal obeys control characters wherever they come from: ESC starts sequences that
clear the screen, set the window title or write the clipboard (OSC 52); C1 bytes such as
U+009B are CSI on some terminals; BEL, backspace and carriage return redraw what was
printed; bidirectional overrides reorder a line (`txt.exe` shown as `exe.txt`).
`terminal_safe` shows every such character instead (ESC as `␛`, the others as `\\xNN` or
`\\uNNNN`), so nothing reaches the terminal raw and the user still sees that it was there.
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = "\u200e\u200f\u202a-\u202e\u2066-\u2069"
_LINES = "\u2028\u2029"
_UNSAFE = re.compile(f"\r\n?|[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_LINES}]")
_UNSAFE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_LINES}]")


def _escape(char: str) -> str:
    if char == "\x1b":
        return "␛"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _replace(match: re.Match[str]) -> str:
    found = match.group(0)
    return "\n" if found == "\r\n" else _escape(found)


def terminal_safe(text: str, *, newlines: bool = True, format_chars: bool = False) -> str:
    """`text` with every control character shown (`␛`, `\\x9b`, `\\u202e`), never raw.

    With `newlines`, line feeds and tabs are kept and CRLF becomes LF (a lone CR, which
    would overwrite the line, is shown as `\\x0d`); without, they are shown too, for a value
    that must stay on one line. `format_chars` also shows every other invisible format
    character (zero-width joiners included), for values a person must judge exactly."""
    if format_chars:
        kept = "\n\t" if newlines else ""
        return "".join(_escape(char) if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")
                       and char not in kept else char for char in text)
    pattern = _UNSAFE if newlines else _UNSAFE_LINE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_replace, text)


def one_line(text: str) -> str:
    """`terminal_safe(text)` kept on one line (a name, a summary, an argument)."""
    return terminal_safe(text, newlines=False)


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
