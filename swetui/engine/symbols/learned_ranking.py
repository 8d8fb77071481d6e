"""Choosing among a described request's candidates with a learned linear ranking: the ten
best definitions by words (BM25F) are scored by a weighted sum of their standardised
features (`candidate_features`), with weights fitted on the benchmark's labelled development
requests (`candidate_weights.WITH_MEANING`, refitted by `python -m bench.fit_candidate_ranking`),
given by the caller: retrieval passes the shipped ones, the benchmark's leave-one-set-out run
each fold's. The score's scale is a log-probability's: a second definition is attached when
its score is within the weights' fitted `margin` of the first's."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from swetui.engine.symbols.candidate_features import FEATURES, Candidate, Request, rows
from swetui.engine.symbols.candidate_weights import LinearRanking
from swetui.engine.symbols.symbol_map import SymbolIndex

CANDIDATES = 10
"""Definitions the learned ranking chooses among (the softmax it was fitted as, and the share
a first pick holds, are over this many): the best of the POOL it re-ranks."""
POOL = 15
"""Definitions by words the learned ranking re-ranks, of which its CANDIDATES best are chosen
among: a first stage (BM25F) cheap enough to rank the whole map, a second (words, meaning,
kind, place) too dear to run on more than a few, given more than it keeps, as rankers are.
Words alone leave the needed definition out of their ten best where a request says it in
other words than the code does (a needed one among the ten best for 109 of 122 described
DECIDE requests, the fifteen best 114, the twenty best 114); the learned ranking puts such
a definition back among its ten best when its meaning is close. Costs the model five more
definitions to embed per described request (once: vectors are kept)."""


LIMIT = 8.0
"""A standardised feature counts at most this many scales from its mean: a value far outside
what the weights were fitted on (a 5,000-line function) does not decide alone."""


def share(scores: Sequence[float], held: Sequence[bool]) -> float:
    """The share of the candidates' probability held by those `held` marks (the scores are
    log-probabilities up to a constant: the ranking was fitted as a softmax over them)."""
    if not scores:
        return 0.0
    top = max(scores)
    weights = [math.exp(value - top) for value in scores]
    return sum(w for w, one in zip(weights, held, strict=True) if one) / sum(weights)


def first_share(scores: Sequence[float]) -> float:
    """The share of the candidates' probability the best of `scores` holds."""
    best = scores.index(max(scores)) if scores else -1
    return share(scores, [n == best for n in range(len(scores))])


def score_rows(table: LinearRanking, found: Sequence[Sequence[float]]) -> list[float]:
    """The learned score of each row of features (higher is better); always finite: a
    feature that is not a finite number is left out."""
    index = {name: n for n, name in enumerate(FEATURES)}
    columns = [index[name] for name in table.features]
    out: list[float] = []
    for row in found:
        total = 0.0
        for column, mean, scale, weight in zip(columns, table.means, table.scales,
                                               table.weights, strict=True):
            value = row[column]
            if math.isfinite(value):
                total += weight * max(-LIMIT, min(LIMIT, (value - mean) / scale))
        out.append(total)
    return out


def ordered(index: SymbolIndex, request: Request, candidates: Sequence[Candidate],
            cosines: Sequence[float], path_weight: Callable[[str], float],
            weights: LinearRanking) -> list[Candidate]:
    """`candidates` best first by their learned score with `weights` (which replaces their
    score); the same definitions, none dropped; ties by file and line, so the order they
    came in never matters."""
    learned = score_rows(weights, rows(index, request, candidates, cosines, path_weight))
    scored = [(value, rel, definition)
              for value, (_words, rel, definition) in zip(learned, candidates, strict=True)]
    scored.sort(key=lambda s: (-s[0], s[1], s[2].start, s[2].qualname))
    return scored
