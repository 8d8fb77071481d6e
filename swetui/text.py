"""Text from a model, a tool or a file name made safe to print on a terminal."""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 (but tab and newline), DEL, C1 and the bidirectional overrides: what can move the
cursor, clear the screen, set the title, write the clipboard (OSC 52) or reorder a line."""


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\x1b":
        return "␛"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """`text` with every control sequence made visible (ESC as ␛), newlines and tabs kept."""
    return CONTROL.sub(_shown, text)
