"""What a hit needs beside itself: the definitions it uses that the request is about
(`iter_lines` → `LineDecoder`, `make_pass_decorator` → `Context.find_object`), and where an
exception class whose message was pasted is raised (`NoSuchOption` → the parser's
`_match_long_opt`)."""

from __future__ import annotations

import re

from swetui.engine.symbols.exceptions import is_exception
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.lookup import Hit, Relevance, behaviour_score, file_weight
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.symbols.words import prose_stems, stems_of_identifier

PASTED_ERROR = re.compile(r"^\s*(?:[\w.]*(?:Error|Exception|Exit|Warning)|[a-z_]\w*(?:\.\w+)+"
                          r"|[A-Z][a-z0-9]+[A-Z]\w*|error|Error|ERROR)\s*:", re.MULTILINE)
"""A request holding an error line as a program prints it (`Error: …`, `ValueError: …`,
`httpx.StreamConsumed: …`, `TooManyRedirects: …`)."""
MAX_CALLEES = 2
SECOND_STEP = 1
"""What the used definitions use in turn, in their own file: at most this many."""
MAX_RAISE_SITES = 2
RAISE_SHARE = 0.5
"""A second place raising the exception is attached only when the request's words match it
at least this share as well as the first (a doubtful extra block costs precision)."""
MAX_DEFINERS = 3
"""A name defined in more places than this (`get`, `__init__`) says nothing about which."""
MIN_CALLEE_SHARE = 1.25
"""A used definition is brought when its words match at least this share of the request's."""


def exception_class(index: SymbolIndex, rel: str, definition: Definition | None
                    ) -> Definition | None:
    """The exception class `definition` is (or is a member of), if any."""
    if definition is None:
        return None
    parts = definition.qualname.split(".")
    for size in range(len(parts), 0, -1):
        qualname = ".".join(parts[:size])
        for candidate in index.by_file[rel].definitions:
            if candidate.qualname == qualname and candidate.kind == "class":
                return candidate if is_exception(index, candidate.name) else None
    return None


def _inside(outer: Definition, inner: Definition) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def raise_sites(index: SymbolIndex, rel: str, exception: Definition, text: str,
                limit: int = MAX_RAISE_SITES) -> list[Hit]:
    """Functions of the source that use `exception` (raise it, mostly), those whose words
    match the request first; one matching them far less than the first is left out."""
    stems = prose_stems(text)
    idf = {stem: index.idf(stem) for stem in stems}
    scored: list[tuple[float, str, Definition]] = []
    for where, symbols in index.by_file.items():
        if file_weight(where) < 1.0:
            continue
        for definition in symbols.definitions:
            if exception.name not in definition.refs or definition.kind == "class":
                continue
            if where == rel and _inside(exception, definition):
                continue
            score, _matched = behaviour_score(definition, stems, idf)
            scored.append((score, where, definition))
    scored.sort(key=lambda s: (-s[0], s[1], s[2].start))
    best = scored[0][0] if scored else 0.0
    return [Hit(where, definition, definition.start, score, f"raises {exception.name}",
                how="raises")
            for score, where, definition in scored[:limit] if score >= RAISE_SHARE * best]


def _uses(index: SymbolIndex, rel: str, definition: Definition) -> set[str]:
    """The names a definition uses, with those of the functions nested in it (shown with
    it: a decorator factory's work is in its inner function)."""
    names = set(definition.refs)
    for inner in index.by_file[rel].definitions:
        if inner is not definition and _inside(definition, inner) and inner.kind != "class":
            names |= inner.refs
    return names


def _class_of(index: SymbolIndex, rel: str, definition: Definition) -> str | None:
    """The qualified name of the class `definition` is (a class) or is a method of."""
    if definition.kind == "class":
        return definition.qualname
    outer = definition.qualname.rpartition(".")[0]
    if outer and any(d.qualname == outer and d.kind == "class"
                     for d in index.by_file[rel].definitions):
        return outer
    return None


def definers(index: SymbolIndex, rel: str, user: Definition, name: str
             ) -> list[tuple[str, Definition]]:
    """Where a name `user` calls is defined (of its few definitions: `MAX_DEFINERS`). A
    class's code calling a name its own class defines calls that one
    (`self._send_handling_auth(…)` in `Client.send` is `Client._send_handling_auth`, not
    `AsyncClient`'s namesake): the method is looked up on the class first, as Python
    does. A method calling its own name calls another's (`Response.is_redirect` returns
    `codes.is_redirect(…)`)."""
    found = index.by_name.get(name, [])
    own = _class_of(index, rel, user)
    if own is not None:
        mine = [(where, d) for where, d in found if where == rel and d is not user
                and d.qualname == f"{own}.{name}"]
        if mine:
            return mine
    return found


def callees(index: SymbolIndex, hits: list[Hit], text: str,
            limit: int = MAX_CALLEES) -> list[Hit]:
    """Definitions the hits use whose own words (name, docstring, comments) match what the
    request asks beyond the hit's own name: what a reader of the hit would open next. A
    named definition's are looked for in every source file; a described one (a guess
    already) only in its own file. None for a pasted error: the raise is the answer. Then
    one step further, in the same file: what those use (`edit` → `Editor.edit_file` →
    `Editor.get_editor`)."""
    stems = [s for s in prose_stems(text) if index.document_frequency.get(s)]
    if not stems:
        return []
    idf = {stem: index.idf(stem) for stem in stems}
    shown = [(h.path, h.definition) for h in hits if h.definition is not None]
    first = _used(index, hits, shown, stems, idf, limit)
    shown += [(h.path, h.definition) for h in first if h.definition is not None]
    return first + _used(index, first, shown, stems, idf, SECOND_STEP)


def _used(index: SymbolIndex, hits: list[Hit], shown: list[tuple[str, Definition]],
          stems: list[str], idf: dict[str, float], limit: int) -> list[Hit]:
    scored: dict[tuple[str, int], tuple[float, str, Definition, str]] = {}
    for hit in hits:
        used_by = hit.definition
        if used_by is None or hit.how not in ("named", "described", "used"):
            continue
        own = stems_of_identifier(used_by.name)
        whole = sum(weight for stem, weight in idf.items() if stem not in own) or 1.0
        for name in sorted(_uses(index, hit.path, used_by)):
            found = index.by_name.get(name, [])
            if not found or len(found) > MAX_DEFINERS or name.startswith("__"):
                continue
            for rel, definition in definers(index, hit.path, used_by, name):
                if _nested_in_function(index, rel, definition) and not (
                        rel == hit.path and _shares_function(index, rel, definition, used_by)):
                    continue  # a function nested in another is called from inside it only
                if definition.kind == "constant" or name in used_by.bases or (
                        definition.kind == "class" and is_exception(index, name)):
                    continue  # type aliases, a base class, what it raises: no next step
                if hit.how != "named" and rel != hit.path:
                    continue
                if file_weight(rel) < 1.0 or definition is used_by or any(
                        rel == p and (_inside(d, definition) or _inside(definition, d))
                        for p, d in shown):
                    continue
                score, _matched = behaviour_score(definition, stems, idf, body=False)
                if score / whole < MIN_CALLEE_SHARE:
                    continue
                key = (rel, definition.start)
                if key not in scored or scored[key][0] < score:
                    scored[key] = (score, rel, definition, used_by.qualname)
    ordered = sorted(scored.values(), key=lambda s: (-s[0], s[1], s[2].start))
    return [Hit(rel, definition, definition.start, score, f"used by {user}", how="used")
            for score, rel, definition, user in ordered[:limit]]


NEIGHBOUR_SHARE = 0.8
"""A caller or callee of the first hit is brought when it matches the request at least this
share as well as the hit (a definition's neighbours are likelier needed than a stranger:
the two together explain the behaviour)."""


def linked(index: SymbolIndex, rel: str, definition: Definition, *,
           callers: bool = True) -> list[tuple[str, Definition]]:
    """The definitions of the source `definition` calls, and (with `callers`) those that
    call it; names defined in more than MAX_DEFINERS places say nothing about which, and a
    function nested in another one is called from inside it only."""
    found: list[tuple[str, Definition]] = []
    for name in sorted(_uses(index, rel, definition)):
        if len(index.by_name.get(name, [])) <= MAX_DEFINERS and not name.startswith("__"):
            found += [(where, d) for where, d in definers(index, rel, definition, name)
                      if not _nested_in_function(index, where, d)
                      or (where == rel and _shares_function(index, rel, d, definition))]
    around = _function_around(index, rel, definition)
    if callers and len(index.by_name.get(definition.name, [])) <= MAX_DEFINERS:
        for where, symbols in index.by_file.items():
            found += [(where, d) for d in symbols.definitions
                      if definition.name in d.refs and d is not definition
                      and (around is None or where == rel and _inside(around, d))]
    return [(where, d) for where, d in found if file_weight(where) == 1.0
            and not (where == rel and (_inside(d, definition) or _inside(definition, d)))]


def _function_around(index: SymbolIndex, rel: str, definition: Definition) -> Definition | None:
    """The function or method `definition` is nested in, if any."""
    around = [d for d in index.by_file[rel].definitions if d is not definition
              and d.kind in ("function", "method") and _inside(d, definition)]
    return min(around, key=lambda d: d.end - d.start, default=None)


def _nested_in_function(index: SymbolIndex, rel: str, definition: Definition) -> bool:
    return _function_around(index, rel, definition) is not None


def _shares_function(index: SymbolIndex, rel: str, inner: Definition,
                     user: Definition) -> bool:
    around = _function_around(index, rel, inner)
    return around is not None and _inside(around, user)


def neighbourhood(index: SymbolIndex, hits: list[Hit], scores: Relevance) -> list[Hit]:
    """The best-matching neighbour of the first hit, when it matches the request nearly as
    well as the hit itself: what a described hit calls or is called by; what a named one
    calls (the request asks how that one works, not who uses it). A described hit is a guess
    already: its neighbour is brought only from a file a hit is shown from (beside them it
    costs lines; elsewhere a block of its own, and such blocks showed needed code once in 8
    on the development sets, `python -m bench.block_origins`). None for a pasted error: the
    raise is the answer."""
    first = next((h for h in hits if h.definition is not None), None)
    if first is None or first.definition is None or first.how not in ("named", "described"):
        return []
    own = scores.of(first.path, first.definition)
    if own <= 0:
        return []
    shown = [(h.path, h.definition) for h in hits if h.definition is not None]
    best: tuple[float, str, Definition] | None = None
    for where, d in linked(index, first.path, first.definition,
                           callers=first.how != "named"):
        if any(where == p and (_inside(d, s) or _inside(s, d)) for p, s in shown):
            continue
        score = scores.of(where, d)
        if best is None or score > best[0]:
            best = (score, where, d)
    if best is None or best[0] < NEIGHBOUR_SHARE * own:
        return []
    if first.how != "named" and all(best[1] != h.path for h in hits):
        return []  # a guess's neighbour in a file of its own: a block, seldom needed
    return [Hit(best[1], best[2], best[2].start, best[0],
                f"next to {first.definition.qualname}", how="used")]
