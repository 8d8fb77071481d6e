"""Regular expressions from the model, matched with a time limit and without holding the GIL.

Python's `re` backtracks without end on patterns like `(a|aa)+$` (grep) or a glob such as
`*a*a*a*a*a*a*b`, and holds the GIL while it does: the whole process freezes, ctrl+c
included. The `regex` module (same syntax) gives up after a timeout and lets other threads
run while it matches.
"""

from __future__ import annotations

from typing import Any

import regex

from swetui.agent.sensitive import glob_to_regex

MATCH_SECONDS = 1.0
"""Longest one match may take (one line for grep, one path for glob): a pattern that needs
more backtracks without end on that input."""


class PatternError(ValueError):
    """The pattern is not a valid regular expression."""


class PatternTooSlow(Exception):
    """Matching took longer than `MATCH_SECONDS` on one input."""


class BoundedPattern:
    """A compiled regular expression whose every match is time-limited."""

    def __init__(self, pattern: str, seconds: float = MATCH_SECONDS, *,
                 dotall: bool = False) -> None:
        flags = regex.VERSION0 | (regex.DOTALL if dotall else 0)
        try:
            self._compiled: Any = regex.compile(pattern, flags)
        except (regex.error, OverflowError, RecursionError) as exc:
            raise PatternError(str(exc)) from None
        self.pattern = pattern
        self.seconds = seconds

    @classmethod
    def glob(cls, pattern: str) -> BoundedPattern:
        """The glob `pattern` (see `glob_to_regex`), bounded the same way."""
        return cls(glob_to_regex(pattern).pattern, dotall=True)

    def search(self, text: str) -> bool:
        """Whether the pattern occurs in `text`; PatternTooSlow past the time limit."""
        try:
            return self._compiled.search(text, timeout=self.seconds, concurrent=True) \
                is not None
        except TimeoutError:
            raise PatternTooSlow(self.pattern) from None

    def match(self, text: str) -> bool:
        """Whether the pattern matches at the start of `text` (globs are anchored)."""
        try:
            return self._compiled.match(text, timeout=self.seconds, concurrent=True) \
                is not None
        except TimeoutError:
            raise PatternTooSlow(self.pattern) from None
