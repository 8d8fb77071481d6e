"""The code behind an error message the request pastes or quotes: string literals whose
fixed parts the request contains (a long message's first sentence is enough), or that equal
a term it quotes when that term reads as a message."""

from __future__ import annotations

import re

from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.engine.symbols.lookup import TESTS, Hit, file_weight
from swetui.engine.symbols.symbol_map import SymbolIndex

MIN_LITERAL_CHARS = 12
MIN_LITERAL_SHARE = 0.5
LONG_MATCH = 40
"""Characters of a long message that, matched, identify it even when the request pastes
only its first sentence."""
LITERAL_SHARE = 0.6
"""A second literal is kept when it matches at least this share of the best one's score."""
QUOTED_MESSAGE = "raises the quoted message"
_QUOTED = re.compile(r'"([^"\n]{2,120})"|`([^`\n]{2,120})`|(?<!\w)\'([^\'\n]{2,120})\'(?!\w)')


def _enclosing(symbols: FileSymbols, line: int) -> Definition | None:
    best: Definition | None = None
    for definition in symbols.definitions:
        if definition.start <= line <= definition.end and (
                best is None or definition.end - definition.start < best.end - best.start):
            best = definition
    return best


def quoted(text: str) -> list[str]:
    """Terms the request quotes ('Aborted!', "No such option", `x`)."""
    return [next(g for g in m.groups() if g is not None).strip().lower()
            for m in _QUOTED.finditer(text)]


def _pasted_part(part: str, text: str) -> str:
    """What `text` pastes of a literal's fixed `part`: all of it, or the longest start of
    a long one (a message of several sentences of which the request pastes the first);
    empty when neither."""
    if len(part) < 4:
        return ""
    if part in text:
        return part
    if len(part) <= LONG_MATCH or part[:LONG_MATCH] not in text:
        return ""
    low, high = LONG_MATCH, len(part) - 1  # a start in the text: so is every shorter one
    while low < high:
        middle = (low + high + 1) // 2
        if part[:middle] in text:
            low = middle
        else:
            high = middle - 1
    return part[:low]


def _message_like(literal: str) -> bool:
    """Whether a quoted literal reads as a message (words, or one word said as a sentence:
    'Aborted!') rather than a value the request quotes ('https://', 'utf-8', 'GET')."""
    return " " in literal or (literal[-1] in "!.?" and literal[:-1].isalpha())


def raising(index: SymbolIndex, text: str, limit: int = 2) -> tuple[list[Hit], list[str]]:
    """The code behind an error message in `text`: string literals whose fixed parts the
    text contains, or that equal a term it quotes (most matched characters first); and the
    fixed parts that matched."""
    lowered = " ".join(text.lower().split())
    terms = {term for term in quoted(text) if len(term) >= 4}
    scored: list[tuple[float, str, int, list[str]]] = []
    about_tests = TESTS.search(text) is not None
    for rel, symbols in index.by_file.items():
        if file_weight(rel) < 1.0 and not about_tests:
            continue  # a test asserting a message is a copy of it, not where it is raised
        for line, parts in symbols.literals:
            fixed = [" ".join(p.lower().split()) for p in parts]
            fixed = [p for p in fixed if p]
            whole = " ".join(fixed)
            if whole in terms and _message_like(whole):
                scored.append((2.0 * len(whole) * file_weight(rel), rel, line, fixed))
                continue
            total = sum(len(p) for p in fixed)
            if total < MIN_LITERAL_CHARS or total > 400 or " " not in whole:
                continue  # identifiers in `__all__` and the like are no messages
            matched = [found for found in (_pasted_part(p, lowered) for p in fixed) if found]
            count = sum(len(p) for p in matched)
            if count >= MIN_LITERAL_CHARS and (count / total >= MIN_LITERAL_SHARE
                                               or count >= LONG_MATCH):
                scored.append((count * (count / total) * file_weight(rel), rel, line, matched))
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    hits: list[Hit] = []
    fragments: list[str] = []
    for score, rel, line, matched in scored:
        if hits and score < LITERAL_SHARE * hits[0].score or len(hits) >= limit:
            break
        definition = _enclosing(index.by_file[rel], line)
        if any(h.path == rel and h.definition == definition for h in hits):
            continue
        hits.append(Hit(rel, definition, line, score, QUOTED_MESSAGE, how="message"))
        fragments += matched
    return hits, fragments
