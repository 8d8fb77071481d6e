"""From a request to the definitions it needs: names it mentions (`name_lookup`: `Client.send`,
`_build_redirect_request`, `NetRCAuth`, in backticks or not), the code that raises an error
message it quotes (matched on the fixed parts of string literals), and the definitions whose
names, docstrings, comments and identifiers best match the behaviour it describes."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from swetui.engine.symbols import learned_ranking, ranking
from swetui.engine.symbols.candidate_features import Request
from swetui.engine.symbols.candidate_weights import WITH_MEANING, LinearRanking
from swetui.engine.symbols.exceptions import is_exception
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.file_roles import FileRole, role_of
from swetui.engine.symbols.semantic import Scored
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.symbols.words import prose_stems, stems_of_identifier

TESTS = re.compile(r"\btests?\b|\btesting\b|\bspec\b", re.IGNORECASE)
MAX_BEHAVIOUR = 2
WORDS_SHARE = 0.7
"""Ranked by words only, definitions scoring at least this share of the best are kept."""
NOVELTY = 0.15
"""A described hit in a file no earlier hit is in must say words of the request the earlier
hits did not, worth this share of the request's weight (another file is another block)."""
EXACT_NAME = 1.5
"""A top-level definition whose whole name is a bare word of the request (`echo`) gains
this many times the request's rarest stem's weight (about a saturated name match)."""
CONSTANT_PRIOR = 0.5
"""A constant (`FORCED_WIDTH = None`) is a value, rarely the behaviour asked about."""
PRECISION_TARGET = 0.85
"""The share of attached blocks that should be what the request needs (issue 14's bar)."""
SURE = PRECISION_TARGET
"""A described request's best candidate is attached as code when the learned ranking gives
it at least this share of the candidates' probability; below, the request gets a shortlist:
one line per likely definition, where to read. The ranking was fitted as a softmax, so that
share estimates how often the first pick is right (on the three newest development sets,
which it was not fitted on, 27 first picks right where the shares summed to 27.9): code is
attached only when it is as likely right as attached blocks should be. Between 0.5 and 0.85
there, the first pick was right for 7 of 13 requests, a shortlist held it for 11. Checked out
of sample on the thirteen decision sets (`python -m bench.share_calibration`: each set ranked
with weights fitted without it), 26 of 27 first picks at or above the cut were right, 19 of 21
between 0.7 and 0.85, 17 of 23 between 0.5 and 0.7: not overconfident where code is attached
(a temperature fitted by likelihood sharpens, 1.2; attaching more by it, or by a cut of 0.5,
raised no held-back precision)."""
SHORTLIST = 5
"""Definitions a shortlist names at most."""
_BARE_WORD = re.compile(r"(?:\b(a|an|the|each|every|this|that|these|those|my|your|its|their|our"
                        r"|any|some|no)\s+)?\b([A-Za-z_]\w*)", re.IGNORECASE)
"""A word of the request and the determiner before it, if any (`each request` is prose)."""
_ROLE_WEIGHTS = {FileRole.SOURCE: 1.0, FileRole.TESTS: 0.35, FileRole.DOCS: 0.5,
                 FileRole.VENDORED: 0.5, FileRole.GENERATED: 0.5}



@dataclass(frozen=True)
class Hit:
    """A definition (or a line, when no definition encloses it) the request needs."""

    path: str
    definition: Definition | None
    line: int
    score: float
    reason: str
    alike: tuple[str, ...] = ()
    """Definitions of the same name scoring the same (a sync and an async twin): named in
    the block, not shown."""
    how: str = "described"
    """How it was found: `named`, `message` (raises a quoted message), `described`,
    `used` (a hit uses it), `raises` (raises the exception class of a message) or
    `candidate` (one of a described request's likely places, shown as a line by
    `retrieval_shortlist`)."""


def file_weight(rel: str) -> float:
    """Source above tests above documentation, examples, vendored and generated code, by
    the file's role (`file_roles`)."""
    return _ROLE_WEIGHTS[role_of(rel)]


def behaviour_score(definition: Definition, stems: list[str], idf: dict[str, float], *,
                    body: bool = True) -> tuple[float, int]:
    """How well a definition's words match the request's stems (its name counts most, then
    its class's name, its docstring and comments, then the identifiers it uses unless
    `body` is false), and how many of the stems it matched."""
    own = stems_of_identifier(definition.name)
    outer = stems_of_identifier(definition.qualname.rsplit(".", 1)[0]) \
        if "." in definition.qualname else set()
    score, matched = 0.0, 0
    for stem in stems:
        if stem in own:
            weight = 3.0
        elif stem in outer:
            weight = 1.5
        elif stem in definition.doc:
            weight = 1.2
        elif body and stem in definition.body:
            weight = 0.6
        else:
            continue
        matched += 1
        score += idf[stem] * weight
    return score, matched


class Relevance:
    """Each definition's relevance to one request: BM25F of its words (`ranking`) times the
    priors (source above tests above documentation, a constant below a function or class,
    closer to the files in `near`). What described behaviour is ranked by and a hit's
    neighbours are weighed by; scored on demand, so weighing a few neighbours does not score
    the whole map. Only files in `within` when given."""

    def __init__(self, index: SymbolIndex, text: str, *, near: Iterable[str] = (),
                 within: set[str] | None = None) -> None:
        self.index = index
        self.within = within
        self.stems = [s for s in prose_stems(text) if index.document_frequency.get(s)]
        self.words = {m.group(2) for m in _BARE_WORD.finditer(text) if m.group(1) is None}
        self.near = set(near)
        self.near_dirs = {rel.rsplit("/", 1)[0] for rel in self.near if "/" in rel}
        self.stats = ranking.collection_of(
            (definition for rel, symbols in index.by_file.items()
             if within is None or rel in within for definition in symbols.definitions),
            index.document_frequency)
        self.idf = {stem: self.stats.idf(stem) for stem in self.stems}
        self.rarest = max(self.idf.values(), default=0.0)
        self._known: dict[tuple[str, int, str], float] = {}

    def limited_to(self, files: set[str]) -> Relevance:
        """The same scores (the whole map's word statistics) for the definitions of `files`
        only."""
        limited = copy.copy(self)
        limited.within = files
        return limited

    def of(self, rel: str, definition: Definition) -> float:
        """The definition's relevance (0 when it says no word of the request)."""
        key = (rel, definition.start, definition.qualname)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = self._score(rel, definition)
        return known

    def _score(self, rel: str, definition: Definition) -> float:
        if not self.stems:
            return 0.0
        score, matched = ranking.score(ranking.fields(definition), self.stems, self.stats)
        if not matched:
            return 0.0
        prior = file_weight(rel) * (1.3 if rel in self.near else 1.1
                                    if rel.rsplit("/", 1)[0] in self.near_dirs else 1.0)
        if definition.kind == "constant":
            prior *= CONSTANT_PRIOR
        if definition.name in self.words and "." not in definition.qualname:  # `echo`
            score += EXACT_NAME * self.rarest  # the word names it: more than its stems say
        return score * prior

    def ranked(self) -> list[tuple[float, str, Definition]]:
        """The definitions saying a word of the request, best first."""
        scored = [(self.of(rel, definition), rel, definition)
                  for rel, symbols in self.index.by_file.items()
                  if self.within is None or rel in self.within
                  for definition in symbols.definitions] if self.stems else []
        scored = [entry for entry in scored if entry[0] > 0]
        scored.sort(key=lambda s: (-s[0], s[1], s[2].start))
        return scored


class Meaning(Protocol):
    """How close in meaning each candidate is to the request (`semantic.SemanticRanker`)."""

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        """One cosine per candidate; None when the model cannot be had."""


def candidates(scores: Relevance, text: str) -> list[Scored]:
    """The definitions saying a word of the request, best by words first; only the source's
    when some are in the source, unless the request is about tests; no exception class."""
    scored = scores.ranked()
    if not TESTS.search(text) and any(file_weight(rel) == 1.0 for _s, rel, _d in scored):
        scored = [entry for entry in scored if file_weight(entry[1]) == 1.0]  # source first
    # An exception class names a failure and says little of how anything is done (mostly a
    # name and a docstring): where it is raised is the behaviour, so it is no candidate.
    return [entry for entry in scored if not (
        entry[2].kind == "class" and is_exception(scores.index, entry[2].name))]


def request_of(scores: Relevance) -> Request:
    """What the learned ranking's features need of the request."""
    return Request(scores.stems, scores.idf, frozenset(scores.words), frozenset(scores.near))


def described(index: SymbolIndex, text: str, *, near: Iterable[str] = (),
              within: set[str] | None = None, limit: int | None = None,
              scores: Relevance | None = None, rerank: Meaning | None = None,
              weights: LinearRanking = WITH_MEANING) -> list[Hit]:
    """Definitions best matching the behaviour `text` describes: the best by words
    (`relevance`), re-ranked by a learned ranking (`learned_ranking`, with `weights`) of
    their features when `rerank` (`semantic`) gives their closeness in meaning (the POOL best
    by words, of which its CANDIDATES best are chosen among), a second kept
    when its learned score is within the weights' margin of the first's; by words alone
    otherwise, kept while they score WORDS_SHARE of the best. Only files in `within` when
    given."""
    limit = MAX_BEHAVIOUR if limit is None else limit
    if scores is None:
        scores = Relevance(index, text, near=near, within=within)
    stems, idf = scores.stems, scores.idf
    top = candidates(scores, text)[:learned_ranking.POOL]
    if not top:
        return []
    cosines = rerank.cosines(text, top) if rerank is not None else None
    words = {id(definition): score for score, _rel, definition in top}
    best = top[0][0]
    if cosines is None:  # words only: the learned ranking did not beat BM25F without meaning
        chosen, floor = top[:learned_ranking.CANDIDATES], WORDS_SHARE * best
    else:  # the pool re-ranked; its best CANDIDATES chosen among, as the ranking was fitted
        chosen = learned_ranking.ordered(index, request_of(scores), top, cosines, file_weight,
                                         weights)[:learned_ranking.CANDIDATES]
        if place_share(chosen) < SURE:
            return _shortlisted(index, chosen, scores)
        floor = chosen[0][0] - weights.margin
    hits: list[Hit] = []
    covered: set[str] = set()
    for score, rel, definition in chosen:
        if score < floor or len(hits) >= limit:
            break
        if _within_one_of(hits, rel, definition):
            continue
        twin = next((n for n, h in enumerate(hits) if h.definition is not None
                     and h.definition.name == definition.name
                     and abs(words[id(h.definition)] - words[id(definition)])
                     <= 0.02 * words[id(h.definition)]), None)
        if twin is not None:
            first = hits[twin]
            hits[twin] = Hit(first.path, first.definition, first.line, first.score,
                             first.reason, (*first.alike, f"{definition.qualname} "
                                            f"({rel}:{definition.start})"), first.how)
            continue
        said = _said(definition, stems)
        if hits and all(h.path != rel for h in hits) and \
                sum(idf[s] for s in said - covered) < NOVELTY * sum(idf.values()):
            continue  # another file, and nothing the request asks that the first did not say
        covered |= said
        hits.append(Hit(rel, definition, definition.start, score, "matches the description"))
    return hits


def place_share(chosen: list[Scored]) -> float:
    """The share of the candidates' probability (`learned_ranking.share`) held by the
    first pick's place: the first and the candidates around or inside it, one block of code
    to read (a method and its class: a shortlist lists them once, `_within_one_of`). A
    method whose class ranked second held 0.67 of 'what rejects an order with zero
    quantity?' alone, and the request got a shortlist naming that method only."""
    if not chosen:
        return 0.0
    top = max(score for score, _r, _d in chosen)
    _s, first_rel, first = next(candidate for candidate in chosen if candidate[0] == top)
    return learned_ranking.share([score for score, _r, _d in chosen],
                                 [rel == first_rel and _nested(first, definition)
                                  for _s, rel, definition in chosen])


def _shortlisted(index: SymbolIndex, chosen: list[Scored], scores: Relevance) -> list[Hit]:
    """The first SHORTLIST of `chosen` (best first), each a `candidate`; a definition inside
    one already listed (or around it), or of the same name (a property's setter), is not
    listed again, and of two twins (`twins`) one is, the sync one, where the first of them
    ranked: an entry is a place to read, and five places are few. A class is listed by one
    of its members (`member_meant`)."""
    hits: list[Hit] = []
    listed: list[Hit] = []  # what each entry stands for: a class listed by its member
    for score, rel, definition in chosen:
        if len(hits) >= SHORTLIST:
            break
        if _within_one_of(listed, rel, definition) or any(
                h.path == rel and h.definition is not None
                and h.definition.qualname == definition.qualname for h in listed):
            continue  # a property's setter beside its getter: one name, one place
        place = member_meant(index, rel, definition, chosen, scores) or definition
        twin = next((n for n, h in enumerate(listed)
                     if h.definition is not None and twins(h.definition, definition)), None)
        if twin is not None and (other := listed[twin].definition) is not None:
            # one behaviour for sync and async callers: one entry, the sync one (the shorter
            # name: its twin's has a prefix more)
            if len(definition.qualname) < len(other.qualname):
                hits[twin] = Hit(rel, place, place.start, hits[twin].score, "a likely place",
                                 how="candidate")
                listed[twin] = Hit(rel, definition, definition.start, score, "",
                                   how="candidate")
            continue
        hits.append(Hit(rel, place, place.start, score, "a likely place", how="candidate"))
        listed.append(Hit(rel, definition, definition.start, score, "", how="candidate"))
    return hits


def _sync_name(qualname: str) -> str:
    """`AsyncClient.aiter_bytes` → `Client.iter_bytes`: the name of the sync twin."""
    return ".".join(part.removeprefix("Async") if part[:1].isupper() else
                    part.removeprefix("async_").removeprefix("a")
                    for part in qualname.split("."))


def twins(a: Definition, b: Definition) -> bool:
    """Whether `a` and `b` are one behaviour written twice, for sync and async callers
    (`iter_bytes`/`aiter_bytes`, `Client.send`/`AsyncClient.send`): the same kind, and the
    same name but for an `a`, `async_` or `Async` prefix."""
    return a.qualname != b.qualname and a.kind == b.kind and (
        _sync_name(a.qualname) == _sync_name(b.qualname))


def member_meant(index: SymbolIndex, rel: str, cls: Definition, chosen: list[Scored],
                 scores: Relevance) -> Definition | None:
    """The member of class `cls` a shortlist points to: the best ranked of its members among
    the candidates `chosen`, else the member the request's words match best; None when `cls`
    is no class or none of its members says a word of the request. A class's behaviour is
    in its methods, and reading one is cheaper than reading them all."""
    if cls.kind != "class":
        return None
    prefix = cls.qualname + "."
    inside = [d for d in index.by_file[rel].definitions
              if d.qualname.startswith(prefix) and "." not in d.qualname[len(prefix):]
              and cls.start < d.start <= cls.end and d.kind != "constant"]
    ranked = next((d for _s, where, d in chosen if where == rel and d in inside), None)
    if ranked is not None:
        return ranked
    best = max(inside, key=lambda d: (scores.of(rel, d), -d.start), default=None)
    return best if best is not None and scores.of(rel, best) > 0 else None


def _said(definition: Definition, stems: list[str]) -> set[str]:
    """The request's stems a definition says in its name, its class's name or its docs."""
    words = stems_of_identifier(definition.qualname) | definition.doc
    return {stem for stem in stems if stem in words}


def _within_one_of(hits: list[Hit], rel: str, definition: Definition) -> bool:
    """Whether `definition` lies inside (or around) a definition already in `hits`."""
    return any(h.path == rel and h.definition is not None and _nested(h.definition, definition)
               for h in hits)


def _nested(a: Definition, b: Definition) -> bool:
    return a.start <= b.start and b.end <= a.end or b.start <= a.start and a.end <= b.end

