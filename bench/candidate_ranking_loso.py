"""The honest estimate of the learned candidate ranking through the whole of retrieval:
for each development set, the weights are fitted on the other nine sets' groups
(`bench/candidate_ranking_groups.json`) and the retrieval benchmark's figures (precision,
block waste, line waste, recall, nothing attached) are measured on that set with them;
beside them, the same run with the shipped weights (fitted on all ten: in-sample).

    python -m bench.candidate_ranking_loso
"""

from __future__ import annotations

from bench.bench_retrieval_quality import Score, _figures, evaluate
from bench.fit_candidate_ranking import SETS, load_groups
from bench.listwise_ranking import fit
from swetui.engine.symbols import candidate_weights


def _line(label: str, score: Score) -> str:
    figures = _figures(score)
    return (f"{label:<22} " + " / ".join(f"{100 * figures[k]:5.1f}" for k in
                                         ("precision", "waste", "line waste", "recall"))
            + f" / {score.empty} of {score.requests} empty")


def main() -> None:
    groups = load_groups()
    honest, shipped = Score(), Score()
    print("precision / block waste / line waste / recall / empty")
    for name, path in SETS:
        fold = fit([g for g in groups if g.set_name != name], True)
        held, _build = evaluate(True, path, weights=fold)
        seen, _build = evaluate(True, path, weights=candidate_weights.WITH_MEANING)
        honest.add(held)
        shipped.add(seen)
        print(_line(f"{name}, fit without it", held))
        print(_line(f"{name}, shipped weights", seen), flush=True)
    print(_line("all ten, left out", honest))
    print(_line("all ten, shipped", shipped))


if __name__ == "__main__":
    main()
