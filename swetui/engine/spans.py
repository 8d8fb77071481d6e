"""The parts of a file retrieval attaches: a definition and its neighbours (decorators, the
enclosing class's header), numbered like `read_file` shows them, with a header saying which
lines of how many are shown and how to read on. A class too long to show whole is shown as
its outline (header, docstring, the first line of each member); a class's docstring by its
first paragraph (`span_docstrings`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from swetui.engine.span_docstrings import docstring_details
from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.engine.symbols.words import stems_of_identifier

MAX_SPAN_LINES = 80
"""A function longer than this is cut (the header says so and how to read on)."""
CLASS_HEAD_LINES = 12
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Span:
    """Lines of one file to show, and why."""

    path: str
    lines: list[int] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def first_line(text: list[str], start: int) -> int:
    """The first line of the definition starting at `start`, its decorators included."""
    first = start
    while first > 1 and text[first - 2].lstrip().startswith("@"):
        first -= 1
    return first


def _parent(symbols: FileSymbols, definition: Definition) -> Definition | None:
    if "." not in definition.qualname:
        return None
    outer = definition.qualname.rsplit(".", 1)[0]
    for candidate in symbols.definitions:
        if candidate.qualname == outer and candidate.start <= definition.start \
                and definition.end <= candidate.end:
            return candidate
    return None


def definition_lines(symbols: FileSymbols, definition: Definition, text: list[str],
                     focus: int | None = None) -> list[int]:
    """The lines that show `definition`: all of it when short; a class's outline or the
    first MAX_SPAN_LINES of a function (around `focus` when given) when long."""
    start = first_line(text, definition.start)
    end = min(definition.end, len(text))
    if end - start < MAX_SPAN_LINES:
        chosen = list(range(start, end + 1))
    elif definition.kind == "class":
        members = [d for d in symbols.definitions if d is not definition
                   and definition.start < d.start <= definition.end
                   and d.qualname.rsplit(".", 1)[0] == definition.qualname]
        head_end = min([d.start - 1 for d in members] + [start + CLASS_HEAD_LINES - 1])
        chosen = list(range(start, head_end + 1))
        chosen += [first_line(text, d.start) for d in members]
        chosen += [d.start for d in members]
    else:
        first = start
        if focus is not None and focus - start >= MAX_SPAN_LINES - 10:
            first = max(start, focus - MAX_SPAN_LINES // 2)
        chosen = list(range(first, min(end, first + MAX_SPAN_LINES - 1) + 1))
        if first > start:
            chosen = [start, *chosen]
    if definition.kind == "class" and symbols.language == "python":
        details = docstring_details(text, definition.start, end)
        chosen = [number for number in chosen if number not in details]
    parent = _parent(symbols, definition)
    if parent is not None:
        chosen.insert(0, parent.start)
    return sorted(set(chosen))


WORD_LINES = 10
"""Lines of a definition brought beside a hit (one it uses or sits next to, a second raise
of the message, where its exception is raised) shown for the request's words, at most (with
one line either side of each): such a definition is shown by its first line and the lines
that matter (saying the request's rarest words; the raise), whatever its size. The answer
is shown whole; what stands beside it is context, one read_file away."""


def worded_lines(symbols: FileSymbols, definition: Definition, text: list[str],
                 score: Callable[[int], float]) -> list[int]:
    """The first line of `definition` (decorators, its class's header) and its lines that
    `score` weighs most (0: not at all), each with the line either side, WORD_LINES of them
    at most."""
    start = first_line(text, definition.start)
    end = min(definition.end, len(text))
    head = set(range(start, definition.start + 1))
    chosen = set(head)
    scored = [(-weight, number) for number in range(definition.start + 1, end + 1)
              if (weight := score(number)) > 0]
    for _weight, number in sorted(scored):
        window = set(range(max(start, number - 1), min(end, number + 1) + 1))
        if len((chosen | window) - head) > WORD_LINES:
            break
        chosen |= window
    parent = _parent(symbols, definition)
    if parent is not None:
        chosen.add(parent.start)
    return sorted(chosen)


def by_words(text: list[str], weigh: Callable[[str], float]) -> Callable[[int], float]:
    """A line's weight: what its words' stems weigh (`weigh`: a stem's weight, 0 if none)."""
    def score(number: int) -> float:
        return sum(weigh(stem) for token in _WORD.findall(text[number - 1])
                   for stem in stems_of_identifier(token))
    return score


def render(span: Span, text: list[str]) -> str:
    """The block sent for a span: a header, then numbered lines; gaps are marked `…`."""
    total = len(text)
    lines = [n for n in sorted(set(span.lines)) if 1 <= n <= total]
    body: list[str] = []
    previous = 0
    for number in lines:
        if previous and number > previous + 1:
            body.append("…")  # lines left out: a mark, no indentation to line up
        body.append(f"{number:>6}\t{text[number - 1]}")
        previous = number
    shown = len(lines)
    reasons = "; ".join(dict.fromkeys(reason for reason in span.reasons if reason))
    why = f" ({reasons})" if reasons else ""
    # Said once, as briefly as it can be said: every token of a note is sent for no line
    # of code (the element the block is sent in names its file, `source="…"`, and
    # read_file's own schema says what its offset is).
    if shown == total:
        return "\n".join([f"All {total:,} lines{why}.", *body])
    last = lines[-1] if lines else 0
    on = f"offset={last + 1}) reads on" if last < total else "offset=1) reads from the top"
    head = f"{shown:,} of {total:,} lines shown{why}; read_file(path={span.path!r}, {on}."
    return "\n".join([head, *body])
