"""What the next request already carries, so retrieval attaches nothing twice: the contents
of task items, and the lines of every file, tool result and memory item that is sent (a file
the model read with `read_file` is not retrieved again)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind, ItemState
from swetui.files import source_lines

_NUMBERED = re.compile(r"^\s*(\d+)\t")
SHOWING_KINDS = frozenset({ItemKind.FILE, ItemKind.TOOL_CALL, ItemKind.MEMORY_FILE,
                           ItemKind.LISTING, ItemKind.GREP})
COVERED_SHARE = 0.9
"""A block whose lines are this much in the request already is not attached again."""


def _split(line: str) -> tuple[int | None, str]:
    """A shown line's number in its file (None when shown without one) and its text."""
    match = _NUMBERED.match(line)
    if match is None:
        return None, line.strip()
    return int(match.group(1)), line[match.end():].strip()


class ShownLines:
    """The lines of files a request shows, kept where they are: a line shown with its
    number (`read_file`, a span) covers that line of that file only, so a function is not
    taken for shown because another with the same body is; a view without numbers (a file
    attached as it is) covers its file's lines by their text."""

    def __init__(self) -> None:
        self.placed: set[tuple[str, int, str]] = set()
        self.texts: set[tuple[str, str]] = set()
        self.loose: set[tuple[str, str]] = set()
        """Lines of views without numbers: they cover a numbered line of the same text."""

    def add(self, path: str, text: str) -> None:
        for line in source_lines(text):
            number, body = _split(line)
            self.texts.add((path, body))
            if number is None:
                self.loose.add((path, body))
            else:
                self.placed.add((path, number, body))

    def covers(self, path: str, lines: Iterable[str]) -> bool:
        """Whether these lines of `path` (its numbered ones when it has any) are nearly all
        shown already."""
        lines = list(lines)
        numbered = [line for line in lines if _NUMBERED.match(line)]
        keys = [key for key in map(_split, numbered or lines) if len(key[1]) > 3]
        if not keys:
            return False
        shown = sum((path, body) in self.texts if number is None
                    else (path, number, body) in self.placed or (path, body) in self.loose
                    for number, body in keys)
        return shown >= COVERED_SHARE * len(keys)


class AlreadySent:
    """Contents by (kind, path or title), and the set of lines, the request carries."""

    def __init__(self, engine: ContextEngine) -> None:
        self.contents: dict[tuple[ItemKind, str], set[str]] = {}
        self.lines = ShownLines()
        for item in engine:
            if item.kind not in SHOWING_KINDS:
                continue
            if not (item.pinned or item.state in (ItemState.INCLUDED, ItemState.STALE)):
                continue
            text = item.sent_text()
            key = item.source.path or item.title
            self.contents.setdefault((item.kind, key), set()).add(text)
            if item.kind is not ItemKind.GREP:
                self.lines.add(key, text)

    def has(self, kind: ItemKind, key: str, content: str) -> bool:
        return content in self.contents.get((kind, key), ())

    def covers(self, key: str, lines: Iterable[str]) -> bool:
        """Whether these lines of `key`'s file (numbered or not) are nearly all in the
        request already."""
        return self.lines.covers(key, lines)

    def add(self, kind: ItemKind, key: str, content: str) -> None:
        self.contents.setdefault((kind, key), set()).add(content)
        if kind is not ItemKind.GREP:
            self.lines.add(key, content)
