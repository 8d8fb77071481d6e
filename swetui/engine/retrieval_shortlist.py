"""A shortlist of where to read: when the learned ranking is not sure which definition a
described request is about (`lookup.SURE`), retrieval attaches one line per likely
definition, best first (its place, its signature, its qualified name and lines), instead of
the code of a guess: a few dozen tokens the model reads to choose, then `read_file`."""

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

HEADING = ("Likely places for this request (retrieval was not sure which one it is about; "
           "best first). read_file(path, start_line, end_line) shows one:")
MAX_SIGNATURE = 160
"""Characters of a signature line shown; a longer one is cut with `…`."""
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


class Places(NamedTuple):
    """A shortlist as attached: its title, its text and the files its lines point into."""

    title: str
    block: str
    paths: tuple[str, ...]


def shortlist(root: Path, index: SymbolIndex, hits: Iterable[Hit],
              exclude: Callable[[str], bool] | None = None) -> Places | None:
    """The `candidate` hits, one line each as `path:line: signature`; None when none can
    be shown (left out as secret, or changed since it was mapped)."""
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
        text = redact(" ".join(lines[number - 1].split()))  # whole: a cut key is no key
        if len(text) > MAX_SIGNATURE:
            text = text[:MAX_SIGNATURE - 1] + "…"
        entries.append(f"{hit.path}:{number}: {text}  ({definition.qualname}, lines "
                       f"{definition.start}-{definition.end})")
        names.append(definition.qualname)
        listed.setdefault(hit.path)
    if not entries:
        return None
    return Places(f"likely places: {', '.join(names)}", "\n".join([HEADING, *entries]),
                  tuple(listed))
