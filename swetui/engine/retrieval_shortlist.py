"""A shortlist of where to read: when the learned ranking is not sure which definition a
described request is about (`lookup.SURE`), retrieval attaches one line per likely
definition, best first, instead of the code of a guess. An entry is a pointer, not code:
its file and lines, the word its line declares it with (`def`, `class`, `async def`) and its
qualified name (`httpx/_client.py:517-544: def BaseClient._redirect_url`); its signature and
body are one `read_file` away. Most entries are guesses the model will not read, so each
costs as little as says what and where: its lines said once (17 tokens, not 21)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from swetui.engine.retrieval_spans import mapped_lines
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.lookup import Hit
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.files import refusal
from swetui.secrets import redact

HEADING = ("Likely places, best first; read_file(path, offset=first line, limit=line count) "
           "shows one:")
"""Names read_file's own arguments: one it does not take is refused (a wasted turn)."""
MAX_KEYWORDS = 40
"""Characters of what declares the definition (`export async function `) shown at most."""
_SEARCH_LINES = 12
"""Lines from a definition's first (its decorators) searched for its `def`/`class` line."""


def signature_line(definition: Definition, lines: list[str]) -> int:
    """The line saying the definition's name (`def name(`, `class Name`, `NAME =`), past
    its decorators; its first line when none does."""
    name = re.compile(rf"\b{re.escape(definition.name)}\b")
    last = min(definition.end, definition.start + _SEARCH_LINES, len(lines))
    for number in range(definition.start, last + 1):
        text = lines[number - 1].lstrip()
        if not text.startswith("@") and name.search(text):
            return number
    return definition.start


def declared_with(name: str, line: str) -> str:
    """The words before `name` on its signature line (`def `, `async def `, `class `,
    `pub fn `), when they are words only: nothing for `NAME = …`, a line not saying the
    name, or one whose name follows code (`x = NAME = 1`)."""
    found = re.search(rf"\b{re.escape(name)}\b", line)
    if found is None:
        return ""
    before = " ".join(line[:found.start()].split())
    if not before or len(before) >= MAX_KEYWORDS or not re.fullmatch(r"[A-Za-z_ ]+", before):
        return ""
    return before + " "


def pointer(definition: Definition, line: str) -> str:
    """What a shortlist entry says of a definition: how its line declares it and its
    qualified name (`async def AsyncClient.send`), none of the line's code."""
    return f"{declared_with(definition.name, line)}{definition.qualname}"


class Places(NamedTuple):
    """A shortlist as attached: its title, its text and the files its lines point into."""

    title: str
    block: str
    paths: tuple[str, ...]


def shortlist(root: Path, index: SymbolIndex, hits: Iterable[Hit],
              exclude: Callable[[str], bool] | None = None) -> Places | None:
    """The `candidate` hits, one line each as `path:first-last: def name`; None when none
    can be shown (left out as secret, or changed since it was mapped)."""
    texts: dict[str, list[str] | None] = {}
    entries: list[str] = []
    names: list[str] = []
    listed: dict[str, None] = {}
    for hit in hits:
        definition = hit.definition
        if hit.how != "candidate" or definition is None:
            continue
        if exclude is not None and exclude(hit.path):
            continue
        if hit.path not in texts:
            texts[hit.path] = mapped_lines(root, index, hit.path, refusal(exclude))
        lines = texts[hit.path]
        if lines is None or definition.end > len(lines):
            continue
        number = signature_line(definition, lines)
        said = redact(pointer(definition, lines[number - 1]))  # words of the file: as any
        entries.append(f"{hit.path}:{definition.start}-{definition.end}: {said}")
        names.append(definition.qualname)
        listed.setdefault(hit.path)
    if not entries:
        return None
    return Places(f"likely places: {', '.join(names)}", "\n".join([HEADING, *entries]),
                  tuple(listed))
