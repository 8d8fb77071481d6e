"""Refit the learned candidate ranking from the development labels, and judge it honestly.

    python -m bench.fit_candidate_ranking            # LOSO table from the saved groups, refit
    python -m bench.fit_candidate_ranking --collect  # first rebuild the groups from the labels

`--collect` runs retrieval's own path on every request of the ten development sets (tuned,
tuned 2, held out 1-8; never a later blind set): the requests that reach described
behaviour (no name resolved, no message matched) give one group each — the POOL best
candidates by words, their features (`candidate_features.rows`, with the model's cosines)
and which of them a good answer needs (its lines overlap a needed definition's, read with
`ast` from the labels, never from the map). The groups are saved in
`bench/candidate_ranking_groups.json`, so refitting needs neither the projects nor the model.

Then, leave one set out: fit on nine sets, judge the tenth (first pick right, a needed one
in the top two, precision and recall of what is attached), for each of the ten, beside the
ranking by words and the current words-and-meaning ranking on the same candidates. Last,
fit on all ten sets and write `swetui/engine/symbols/candidate_weights.py` (its in-sample
figures are no honest measure; the leave-one-set-out ones are)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.listwise_ranking import Group, Tally, fit, leave_one_set_out
from bench.retrieval_projects import (
    DEVELOPMENT_SETS,
    labels,
    mapped,
    needed,
)
from bench.words_and_meaning import words_and_meaning
from swetui.engine.retrieval import _PATH, RetrievalResult, _is_path, _named_paths
from swetui.engine.retrieval_spans import _direct_hits
from swetui.engine.symbols.candidate_features import rows
from swetui.engine.symbols.candidate_weights import LinearRanking
from swetui.engine.symbols.learned_ranking import POOL
from swetui.engine.symbols.lookup import Relevance, file_weight, request_of
from swetui.engine.symbols.semantic import MODEL, Scored, SemanticRanker, VectorCache
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.workspace_tree import IGNORED_DIRS, MAX_SCAN_FILES, walk

SETS = DEVELOPMENT_SETS
"""The development sets: the only labels this script may read."""
GROUPS = Path(__file__).with_name("candidate_ranking_groups.json")
WEIGHTS = Path(__file__).parents[1] / "swetui" / "engine" / "symbols" / "candidate_weights.py"


class Capture:
    """Stands where the meaning ranker does and records what `described` asks it."""

    def __init__(self, ranker: SemanticRanker) -> None:
        self.ranker = ranker
        self.asked: list[tuple[str, list[Scored], list[float] | None]] = []

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        found = self.ranker.cosines(text, candidates)
        self.asked.append((text, list(candidates), found))
        return found


def _prose(root: Path, text: str) -> tuple[list[str], str]:
    """The files a request names and its words without them, as `retrieve` makes them."""
    tree = walk(root, IGNORED_DIRS, MAX_SCAN_FILES)[0]
    near, _dirs = _named_paths(root, text, lambda: tree, RetrievalResult())
    return near, _PATH.sub(lambda m: " " if _is_path(m.group(0), near) else m.group(0), text)


def collect() -> list[Group]:
    groups: list[Group] = []
    indexes: dict[Path, SymbolIndex] = {}
    cache = VectorCache()
    for set_name, path in SETS:
        data = labels(path)
        for request in data["requests"]:
            root, index = mapped(data["projects"][request["project"]], indexes)
            text = request["request"]
            near, prose = _prose(root, text)
            capture = Capture(SemanticRanker(root, MODEL, cache))
            _direct_hits(index, prose, near, Relevance(index, prose, near=near), capture)
            if not capture.asked:
                continue  # named code or a pasted message: not chosen among candidates
            asked, top, cosines = capture.asked[0]
            assert cosines is not None, "the embedding model must load to collect"
            scores = Relevance(index, asked, near=near)
            needs = needed(root, request["needs"])
            found = [[round(value, 6) for value in row]
                     for row in rows(index, request_of(scores), top, cosines, file_weight)]
            current = words_and_meaning(list(top), cosines)
            position = {id(d): s for s, _r, d in current}
            groups.append(Group(
                set_name, text, found,
                [any(need.path == rel and any(a <= d.end and d.start <= b
                                              for a, b in need.ranges)
                     for need in needs) for _s, rel, d in top],
                [rel for _s, rel, _d in top], [need.path for need in needs],
                [round(position[id(d)], 6) for _s, _r, d in top]))
            assert len(top) <= POOL
        print(f"collected {set_name}", file=sys.stderr)
    return groups


def _cell(tally: Tally) -> str:
    return (f"{tally.first:>2}/{tally.requests:<2} {tally.top2:>2} "
            f"{100 * tally.precision():5.1f} {100 * tally.recall():5.1f}")


def report(groups: list[Group], with_meaning: bool) -> None:
    print(f"\nleave one set out ({'words and meaning' if with_meaning else 'words only'}): "
          "first pick right / described requests, top two, precision, recall of needed files")
    print(f"{'set':<11} | {'by words':<20} | {'current (meaning)':<20} | learned (fit on the "
          "other nine)")
    totals = [Tally(), Tally(), Tally()]
    for name, tallies in leave_one_set_out(groups, with_meaning).items():
        print(f"{name:<11} | " + " | ".join(_cell(t) for t in tallies))
        for total, tally in zip(totals, tallies, strict=True):
            for attr in ("requests", "first", "top2", "attached", "relevant", "files",
                         "files_found"):
                setattr(total, attr, getattr(total, attr) + getattr(tally, attr))
    print(f"{'all ten':<11} | " + " | ".join(_cell(t) for t in totals))


def _table(name: str, table: LinearRanking) -> str:
    rows = "".join(f"        ({feature!r}, {mean!r}, {scale!r}, {weight!r}),\n"
                   for feature, mean, scale, weight in zip(table.features, table.means,
                                                           table.scales, table.weights,
                                                           strict=True))
    return (f"{name} = LinearRanking.of(\n    margin={table.margin!r},\n    rows=(\n"
            f"        # feature, mean, scale, weight (per standardised unit)\n{rows}    ))\n")


TABLE_START = "WITH_MEANING = "
"""Where the fitted table starts in `candidate_weights.py`: what is above it (its note and
the LinearRanking type) is kept as it is when the weights are refitted."""


def weights_module(groups: list[Group], current: str) -> str:
    """The text of `candidate_weights.py` (now `current`) with the table fitted on all
    `groups`."""
    return current[:current.index(TABLE_START)] + _table("WITH_MEANING", fit(groups, True))


def load_groups(path: Path = GROUPS) -> list[Group]:
    return [Group.load(g) for g in json.loads(path.read_text(encoding="utf-8"))]


def main() -> None:
    if "--collect" in sys.argv or not GROUPS.exists():
        groups = collect()
        GROUPS.write_text(json.dumps([g.__dict__ for g in groups], indent=None) + "\n",
                          encoding="utf-8")
    groups = load_groups()
    report(groups, True)
    report(groups, False)
    WEIGHTS.write_text(weights_module(groups, WEIGHTS.read_text(encoding="utf-8")),
                       encoding="utf-8")
    print(f"\nwrote {WEIGHTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
