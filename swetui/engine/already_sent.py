"""What the next request already carries, so retrieval attaches nothing twice: the contents
of task items, and the lines of every file, tool result and memory item that is sent (a file
the model read with `read_file` is not retrieved again)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind, ItemState

_NUMBERED = re.compile(r"^\s*\d+\t")
SHOWING_KINDS = frozenset({ItemKind.FILE, ItemKind.TOOL_CALL, ItemKind.MEMORY_FILE,
                           ItemKind.LISTING, ItemKind.GREP})
COVERED_SHARE = 0.9
"""A block whose lines are this much in the request already is not attached again."""


def _key_line(line: str) -> str:
    return _NUMBERED.sub("", line, count=1).strip()


class AlreadySent:
    """Contents by (kind, path or title), and the set of lines, the request carries."""

    def __init__(self, engine: ContextEngine) -> None:
        self.contents: dict[tuple[ItemKind, str], set[str]] = {}
        self.lines: set[str] = set()
        for item in engine:
            if item.kind not in SHOWING_KINDS:
                continue
            if not (item.pinned or item.state in (ItemState.INCLUDED, ItemState.STALE)):
                continue
            text = item.sent_text()
            self.contents.setdefault((item.kind, item.source.path or item.title),
                                     set()).add(text)
            if item.kind is not ItemKind.GREP:
                self.lines.update(_key_line(line) for line in text.splitlines())

    def has(self, kind: ItemKind, key: str, content: str) -> bool:
        return content in self.contents.get((kind, key), ())

    def covers(self, lines: Iterable[str]) -> bool:
        """Whether these lines (numbered or not) are nearly all in the request already."""
        keys = [key for key in (_key_line(line) for line in lines) if len(key) > 3]
        if not keys:
            return False
        return sum(key in self.lines for key in keys) >= COVERED_SHARE * len(keys)

    def add(self, kind: ItemKind, key: str, content: str) -> None:
        self.contents.setdefault((kind, key), set()).add(content)
        if kind is not ItemKind.GREP:
            self.lines.update(_key_line(line) for line in content.splitlines())
