"""The hand-set mix of words and meaning that ranked a described request's candidates before
the learned ranking (`swetui/engine/symbols/learned_ranking.py`) replaced it in retrieval.
Kept only as the refit script's comparison column: `python -m bench.fit_candidate_ranking
--collect` records each candidate's score by it (`Group.current`), and the leave-one-set-out
table sets the learned ranking beside it."""

from __future__ import annotations

from swetui.engine.symbols.learned_ranking import CANDIDATES
from swetui.engine.symbols.semantic import Scored

WEIGHT = 1.0
"""What meaning adds to the words' score (scaled so the best by words is 1.0): WEIGHT × the
cosine above UNRELATED. 0.5 changed almost nothing; 1.5 and 2 traded tuned requests for
held-out ones."""
UNRELATED = 0.1
"""About the cosine of two unrelated texts for the model."""
GAP = 0.05
"""A candidate whose cosine with the request is more than this below the leader's is about
something else: its score is halved (kept, below the leader), so a second definition is
attached only when it is about as close in meaning as the first. Any value from 0.03 to
0.06 gave the same benchmark figures; 0.08 and above kept more wasted second blocks."""
DEMOTED = 0.5


def words_and_meaning(scored: list[Scored], cosines: list[float]) -> list[Scored]:
    """`scored` (best by words first) with its first CANDIDATES re-ranked by words and
    meaning (`cosines`: the request's with each of them): scores are scaled so the best by
    words is 1.0, and the re-ranked ones gain WEIGHT × their cosine above UNRELATED. The
    same definitions come back, none dropped; the rest keep their order below them."""
    if not scored:
        return scored
    top = scored[:CANDIDATES]
    best = scored[0][0] or 1.0
    combined = [(score / best + WEIGHT * (cosine - UNRELATED), rel, definition)
                for (score, rel, definition), cosine in zip(top, cosines, strict=True)]
    combined.sort(key=lambda s: (-s[0], s[1], s[2].start))
    meaning = {id(d): cosine for (_s, _r, d), cosine in zip(top, cosines, strict=True)}
    lead = meaning[id(combined[0][2])]
    combined = combined[:1] + [
        (score * (DEMOTED if meaning[id(definition)] < lead - GAP else 1.0), rel, definition)
        for score, rel, definition in combined[1:]]
    combined.sort(key=lambda s: (-s[0], s[1], s[2].start))
    floor = combined[-1][0]
    rest = [(min(score / best, floor), rel, definition)
            for score, rel, definition in scored[len(top):]]
    return combined + rest
