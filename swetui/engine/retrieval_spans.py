"""Retrieval from the symbol map: the request's hits (named definitions, the code raising a
quoted error, definitions matching a described behaviour) become spans of files, merged per
file and rendered with a header that says which lines of how many are shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from swetui.engine.retrieval_members import focus_members, member_lines
from swetui.engine.sources import read_workspace_text
from swetui.engine.spans import (
    Span,
    by_words,
    definition_lines,
    render,
    worded_lines,
)
from swetui.engine.symbols.candidate_weights import WITH_MEANING, LinearRanking
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.lookup import (
    Hit,
    Meaning,
    Relevance,
    described,
    file_weight,
)
from swetui.engine.symbols.name_lookup import names_in, resolve
from swetui.engine.symbols.neighbours import (
    PASTED_ERROR,
    callees,
    exception_class,
    neighbourhood,
    raise_sites,
)
from swetui.engine.symbols.quoted_messages import raising
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.symbols.words import prose_stems
from swetui.files import Refuse, refusal

MAX_SPAN_FILE_BYTES = 2_000_000
LINE_CONTEXT = 3
"""Lines shown either side of a hit no definition encloses."""


def _raising(index: SymbolIndex, text: str) -> tuple[list[Hit], list[str]]:
    """The code behind a quoted error message. A message built in an exception class (the
    wrapper every raise of it shares, `Invalid value for …`) yields to a literal of the same
    message outside one (the raise that says which); one built only there brings where the
    class is raised, when the request pastes the error as a program prints it."""
    hits, fragments = raising(index, text)
    classes = [exception_class(index, hit.path, hit.definition) for hit in hits]
    outside = [hit for hit, cls in zip(hits, classes, strict=True) if cls is None]
    if outside:
        return outside, fragments
    if hits and PASTED_ERROR.search(text):
        for hit, cls in zip(list(hits), classes, strict=True):
            if cls is not None:
                hits += raise_sites(index, hit.path, cls, text)
    return hits, fragments


@dataclass(frozen=True, slots=True)
class FoundHits:
    """A request's hits by how they were found: `direct`ly (named, raising a quoted
    message, or described), `used` by those (what they call that the request is about), or
    `around` them (their neighbours)."""

    direct: list[Hit]
    used: list[Hit]
    around: list[Hit]

    def all(self) -> list[Hit]:
        """Every hit, strongest first: what retrieval attaches."""
        return self.direct + self.used + self.around


Keep = Callable[[FoundHits], list[Hit]]
"""Which of the hits found are attached: `FoundHits.all` as shipped (the benchmark's study of
where blocks come from reads each part, and leaves one out)."""


def found_hits(index: SymbolIndex, text: str, near: Iterable[str] = (),
               rerank: Meaning | None = None, weights: LinearRanking = WITH_MEANING
               ) -> FoundHits:
    """What the request needs from the map, strongest first, then what those use that the
    request is about, then their neighbours (described behaviour ranked by meaning too,
    with the learned `weights`, when `rerank` is given)."""
    scores = Relevance(index, text, near=near)
    hits = _direct_hits(index, text, near, scores, rerank, weights)
    if any(hit.how == "candidate" for hit in hits):
        return FoundHits(hits, [], [])  # a shortlist of where to read: nothing around a guess
    used = callees(index, hits, text)
    return FoundHits(hits, used, neighbourhood(index, hits + used, scores))


def find_hits(index: SymbolIndex, text: str, near: Iterable[str] = (),
              rerank: Meaning | None = None, weights: LinearRanking = WITH_MEANING
              ) -> list[Hit]:
    """Every hit `found_hits` finds, strongest first."""
    return found_hits(index, text, near, rerank, weights).all()


def _direct_hits(index: SymbolIndex, text: str, near: Iterable[str],
                 scores: Relevance, rerank: Meaning | None = None,
                 weights: LinearRanking = WITH_MEANING) -> list[Hit]:
    hits, fragments = _raising(index, text)
    named = scores.near  # the files the request names
    traceback = PASTED_ERROR.search(text) is not None
    if fragments:  # a pasted error: its own words (`AsyncClient`) are no request for them
        text = "\n".join(line for line in text.splitlines()
                         if not any(f in " ".join(line.lower().split()) for f in fragments))
        scores = Relevance(index, text, near=near)
    pasted = PASTED_ERROR.search(text) is not None
    for name in names_in(text):
        dotted = ".".join(name.parts)
        for rel, definition in resolve(index, name.parts, called=name.called,
                                       capitals=name.capitals, named=named):
            hits.append(Hit(rel, definition, definition.start, 100.0,
                            f"{definition.qualname}, named in the request"
                            if definition.qualname != dotted else "named in the request",
                            how="named"))
            cls = exception_class(index, rel, definition) if pasted else None
            if cls is definition and not any(h.how == "message" for h in hits):
                hits += raise_sites(index, rel, cls, text)  # `httpx.StreamConsumed: …`
    if not traceback:
        hits = _where_raised(index, hits, text)
    if traceback and any(hit.how in ("message", "raises") for hit in hits):
        # The raise is the answer: the exception's class and the caller's own code in the
        # traceback (`client.post(…)`) are what the user already sees.
        hits = [hit for hit in hits if hit.how != "named"]
    if not hits:
        hits += _described_in_named(index, text, scores, rerank, weights) \
            or described(index, text, scores=scores, rerank=rerank, weights=weights)
    return hits


def _described_in_named(index: SymbolIndex, text: str, scores: Relevance,
                        rerank: Meaning | None, weights: LinearRanking) -> list[Hit]:
    """A request that names a source file and describes behaviour asks about that file's
    code (`src/requests/utils.py: is the Content-Length only what is left after the current
    position?`): the description is looked for among its definitions first (scored by the
    whole map's word statistics, as any description is)."""
    inside = {rel for rel in scores.near if rel in index.by_file and file_weight(rel) == 1.0}
    if not inside:
        return []
    return described(index, text, scores=scores.limited_to(inside), rerank=rerank,
                     weights=weights)


def _where_raised(index: SymbolIndex, hits: list[Hit], text: str) -> list[Hit]:
    """A question naming an exception class (no error pasted) asks when it happens, which
    its class (mostly a name and a docstring) does not say: beside other named code, the
    subject, the class is left out; named alone, it gives way to where it is raised."""
    named_hits = [hit for hit in hits if hit.how == "named"]
    classes = [hit for hit in named_hits
               if exception_class(index, hit.path, hit.definition) is hit.definition]
    if not classes:
        return hits
    kept = [hit for hit in hits if hit not in classes]
    if len(classes) < len(named_hits):
        return kept
    for hit in classes:
        assert hit.definition is not None  # an exception class
        kept += raise_sites(index, hit.path, hit.definition, text) or [hit]
    return kept


def _secondary(hit: Hit, lines: list[str], weigh: Callable[[str], float],
               messages: int) -> Callable[[int], float] | None:
    """How to weigh the lines of a hit beside the answer (what a hit uses or sits next to,
    a second literal of the message, where its exception is raised); None for the answer."""
    if hit.how == "used":
        return by_words(lines, weigh)
    if hit.how == "message" and messages > 1:
        return lambda number: 1.0 if number == hit.line else 0.0
    if hit.how == "raises":
        name = hit.reason.rsplit(" ", 1)[-1]
        return lambda number: 1.0 if name in lines[number - 1] else 0.0
    return None


def mapped_lines(root: Path, index: SymbolIndex, rel: str,
                 refuse: Refuse | None = None) -> list[str] | None:
    """The lines of `rel` as the map knows them; None when it cannot be read, is binary now,
    or changed since it was mapped (the map's lines would name other code: a definition's
    span titled with a name it no longer holds; the watcher brings the map up to date, until
    then the file is left out)."""
    try:
        loaded = read_workspace_text(root, rel, MAX_SPAN_FILE_BYTES, refuse)
    except OSError:
        return None
    if loaded is None:
        return None
    lines = loaded.lines()
    if len(lines) != index.by_file[rel].lines and not loaded.cut:
        return None
    return lines


def _why(hit: Hit, definition: Definition) -> str:
    """What a span's note says of why a hit's lines are there: nothing the request says
    already (a definition it names, or the one its description matched, is what it asked
    for; the code shows its name), but the definition a name was resolved to when the
    request put it otherwise (`response.is_redirect` → `Response.is_redirect`), and what
    brought the others (`raises the quoted message`, `used by Client.send`)."""
    if hit.how not in ("named", "described"):
        return hit.reason if hit.reason.startswith(definition.qualname) \
            else f"{definition.qualname}: {hit.reason}"
    own, _, through = hit.reason.partition(", through ")  # `retrieval_wrappers`
    if through:  # what the request asked for only calls what is shown
        return f"{definition.qualname}, through {through}"
    return definition.qualname if own.startswith(definition.qualname + ", ") else ""


def _also(reason: str, more: str) -> str:
    return f"{reason}; {more}" if reason else more


def span_title(span: Span) -> str:
    """`path:first-last` for lines shown in one run; the runs (`path:356,799-808`) when
    lines are left out between them, the first two and the last when there are more, so
    the title never claims lines that were not sent."""
    lines = sorted(set(span.lines))
    runs: list[tuple[int, int]] = []
    for number in lines:
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    parts = [f"{a}-{b}" if a != b else f"{a}" for a, b in runs]
    if len(parts) > 3:
        parts = [*parts[:2], "…", parts[-1]]
    return f"{span.path}:{','.join(parts)}"


def symbol_spans(root: Path, index: SymbolIndex, text: str, hits: Iterable[Hit], *,
                 exclude: Callable[[str], bool] | None = None) -> Iterator[tuple[Span, str]]:
    """(span, the block to send) for each file the request's `hits` (`found_hits`) fall in,
    best first; a shortlist's candidates are not spans (`retrieval_shortlist`)."""
    spans: dict[str, Span] = {}
    texts: dict[str, list[str]] = {}
    changed: set[str] = set()
    asked = set(prose_stems(text))

    def weigh(stem: str) -> float:
        return index.idf(stem) if stem in asked else 0.0

    messages = 0
    for hit in hits:
        if hit.how == "candidate" or exclude is not None and exclude(hit.path):
            continue
        if hit.path in changed:
            continue
        symbols = index.by_file[hit.path]
        lines = texts.get(hit.path)
        if lines is None:
            lines = mapped_lines(root, index, hit.path, refusal(exclude))
            if lines is None:
                changed.add(hit.path)
                continue
            texts[hit.path] = lines
        if max(hit.line, hit.definition.end if hit.definition else 0) > len(lines):
            continue  # the file was cut short since it was mapped: the watcher will say
        if hit.definition is not None:
            messages += hit.how == "message"
            chosen = definition_lines(symbols, hit.definition, lines, focus=hit.line)
            reason = _why(hit, hit.definition)
            picked = focus_members(index, hit.path, hit.definition, text) \
                if hit.how in ("named", "described") else []
            if picked:  # the members the request is about, not the whole class
                chosen, said = member_lines(symbols, hit.definition, picked, lines)
                reason = _also(reason, f"{hit.definition.qualname}: {said}"
                               if not reason else said)
            size = hit.definition.end - hit.definition.start + 1
            score = _secondary(hit, lines, weigh, messages)
            if score is not None:  # beside the answer: the lines that matter
                chosen = worded_lines(symbols, hit.definition, lines, score)
                inside = [n for n in chosen
                          if hit.definition.start <= n <= hit.definition.end]
                if len(inside) < size:
                    reason = _also(reason, f"{len(inside)} of its {size} lines")
            if hit.alike:
                reason = _also(reason or hit.definition.qualname,
                               f"alike, not shown: {', '.join(hit.alike)}")
        else:
            chosen = list(range(max(1, hit.line - LINE_CONTEXT),
                                min(len(lines), hit.line + LINE_CONTEXT) + 1))
            reason = f"line {hit.line}: {hit.reason}"
        span = spans.setdefault(hit.path, Span(hit.path))
        span.lines.extend(chosen)
        span.reasons.append(reason)
    for span in spans.values():
        yield span, render(span, texts[span.path])
