"""The listwise linear ranking behind the learned candidate ranking
(`swetui/engine/symbols/learned_ranking.py`), a library for the scripts that run it
(`python -m bench.fit_candidate_ranking`, `python -m bench.candidate_ranking_loso`): fitting
and judging it from labelled groups, one group per described development request, its
candidates' feature rows and which of them a good answer needs. The fit is deterministic
(full-batch gradient descent from zero, fixed steps), so the shipped weights can be
reproduced from the data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from swetui.engine.symbols.candidate_features import FEATURES
from swetui.engine.symbols.candidate_weights import LinearRanking
from swetui.engine.symbols.learned_ranking import LIMIT

MEANING_FEATURES = ("meaning", "meaning_gap")
L2 = 0.2
"""Ridge penalty on the standardised weights: keeps them small and stable. Of 0.01, 0.05, 0.2
and 1.0, 0.2 gave the best leave-one-set-out first picks (58, 58, 60, 58 of 87); chosen
inside each fold instead (nested), the estimate is the same 60 of 87."""
STEPS = 1500
RATE = 0.5
MARGINS = tuple(round(0.25 * n, 2) for n in range(0, 17))
"""Margins tried for attaching a second candidate (scores are log-probabilities)."""
ATTACH = 2
"""At most this many described hits are attached (lookup.MAX_BEHAVIOUR)."""
RECALL_WEIGHT = 1.0
"""How much recall counts beside precision when the margin is chosen."""
OLD_SHARE = 0.7
"""The hand-set cut the current ranking attaches with (share of the best score)."""


@dataclass
class Group:
    """One described request's candidates, best by words first."""

    set_name: str
    request: str
    rows: list[list[float]]
    needed: list[bool]
    files: list[str]
    needed_files: list[str]
    current: list[float] = field(default_factory=list)
    """The current ranking's (words and meaning) score of each candidate."""

    @classmethod
    def load(cls, data: dict[str, Any]) -> Group:
        return cls(**data)


def columns(with_meaning: bool) -> tuple[str, ...]:
    return FEATURES if with_meaning else tuple(f for f in FEATURES
                                               if f not in MEANING_FEATURES)


def _matrix(groups: Sequence[Group], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray,
                                                                    np.ndarray]:
    """Padded (groups × 10 × features) rows, the needed mask and the present mask."""
    picks = [FEATURES.index(name) for name in names]
    width = max((len(g.rows) for g in groups), default=1)
    x = np.zeros((len(groups), width, len(picks)))
    y = np.zeros((len(groups), width))
    present = np.zeros((len(groups), width), dtype=bool)
    for n, group in enumerate(groups):
        count = len(group.rows)
        x[n, :count] = np.asarray(group.rows, dtype=float)[:, picks]
        y[n, :count] = group.needed
        present[n, :count] = True
    return x, y, present


def fit(groups: Sequence[Group], with_meaning: bool = True) -> LinearRanking:
    """A listwise linear ranking (softmax over each group's candidates, maximising the
    probability of its needed ones, ridge-penalised) and the margin that attaches a second
    candidate best on these groups (precision + recall of needed files)."""
    names = columns(with_meaning)
    usable = [g for g in groups if any(g.needed)]
    x, y, present = _matrix(usable, names)
    flat = x[present]
    means = flat.mean(axis=0)
    scales = flat.std(axis=0)
    scales[scales < 1e-6] = 1.0
    z = np.clip((x - means) / scales, -LIMIT, LIMIT)
    z[~present] = 0.0
    weights = np.zeros(len(names))
    count = max(len(usable), 1)
    for _ in range(STEPS):
        scores = z @ weights
        scores[~present] = -np.inf
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        q = p * y
        q /= q.sum(axis=1, keepdims=True)
        gradient = np.einsum("gc,gcf->f", p - q, z) / count + L2 * weights
        weights -= RATE * gradient
    table = LinearRanking(tuple(names), tuple(round(float(v), 5) for v in means),
                          tuple(round(float(v), 5) for v in scales),
                          tuple(round(float(v), 4) for v in weights), 0.0)
    margin = max(MARGINS, key=lambda m: (_quality(groups, table, m), -m))
    return LinearRanking(table.features, table.means, table.scales, table.weights, margin)


def learned_scores(table: LinearRanking, group: Group) -> list[float]:
    picks = [FEATURES.index(name) for name in table.features]
    rows = np.asarray(group.rows, dtype=float)[:, picks]
    z = np.clip((rows - table.means) / table.scales, -LIMIT, LIMIT)
    return [float(v) for v in z @ np.asarray(table.weights)]


def order(scores: Sequence[float]) -> list[int]:
    """Candidates best first (ties: the order by words)."""
    return sorted(range(len(scores)), key=lambda n: (-scores[n], n))


def attached_by_margin(scores: Sequence[float], margin: float) -> list[int]:
    ranked = order(scores)
    return [n for n in ranked[:ATTACH] if scores[n] >= scores[ranked[0]] - margin]


def attached_by_share(scores: Sequence[float], share: float = OLD_SHARE) -> list[int]:
    ranked = order(scores)
    return [n for n in ranked[:ATTACH] if scores[n] >= share * scores[ranked[0]]]


@dataclass
class Tally:
    """First pick, top two, and what is attached, over a set's described requests."""

    requests: int = 0
    first: int = 0
    top2: int = 0
    attached: int = 0
    relevant: int = 0
    files: int = 0
    files_found: int = 0

    def add(self, group: Group, ranked: list[int], attached: list[int]) -> None:
        self.requests += 1
        self.first += bool(ranked) and group.needed[ranked[0]]
        self.top2 += any(group.needed[n] for n in ranked[:2])
        self.attached += len(attached)
        self.relevant += sum(group.needed[n] for n in attached)
        self.files += len(group.needed_files)
        self.files_found += len({group.files[n] for n in attached if group.needed[n]})

    def precision(self) -> float:
        return self.relevant / max(self.attached, 1)

    def recall(self) -> float:
        return self.files_found / max(self.files, 1)


def _quality(groups: Sequence[Group], table: LinearRanking, margin: float) -> float:
    tally = Tally()
    for group in groups:
        scores = learned_scores(table, group)
        tally.add(group, order(scores), attached_by_margin(scores, margin))
    return tally.precision() + RECALL_WEIGHT * tally.recall()


def judge(groups: Sequence[Group], how: str, table: LinearRanking | None = None) -> Tally:
    """Tally of `groups` ranked by words (`words`), by the current words-and-meaning
    ranking (`current`), or by `table` (`learned`)."""
    tally = Tally()
    for group in groups:
        if how == "words":
            scores = [-float(n) for n in range(len(group.rows))]
            ranked = order(scores)
            words = [row[FEATURES.index("words")] for row in group.rows]
            tally.add(group, ranked, attached_by_share(words))
        elif how == "current":
            tally.add(group, order(group.current), attached_by_share(group.current))
        else:
            assert table is not None
            scores = learned_scores(table, group)
            tally.add(group, order(scores), attached_by_margin(scores, table.margin))
    return tally


def leave_one_set_out(groups: Sequence[Group], with_meaning: bool = True
                      ) -> dict[str, tuple[Tally, Tally, Tally]]:
    """For each set: (by words, current, learned on the other sets) on that set."""
    out: dict[str, tuple[Tally, Tally, Tally]] = {}
    for held in dict.fromkeys(g.set_name for g in groups):
        train = [g for g in groups if g.set_name != held]
        test = [g for g in groups if g.set_name == held]
        table = fit(train, with_meaning)
        out[held] = (judge(test, "words"), judge(test, "current"), judge(test, "learned", table))
    return out
