"""Is the learned ranking's share calibrated out of sample? For every described request of the
decision sets (the development sets but the three newest), retrieval's own path is run with
weights fitted without that request's set: leave-one-set-out for the sets the shipped weights
were fitted on (`candidate_ranking_groups.json`), the shipped weights for the later ones
(fitted before they were written). Each request's first-pick place share (`lookup.place_share`,
what `lookup.SURE` cuts) is set beside whether the first pick is a needed definition, and:

- the reliability table: per band of share, requests, mean share, first picks right;
- the temperature that maximises the likelihood of those outcomes (share of the first pick's
  place under the softmax of the scores times the temperature), and its table;
- how many first picks above each cut are right; the run fails when, out of sample, fewer
  first picks above `lookup.SURE` are right than `lookup.PRECISION_TARGET` of them.

    python -m bench.share_calibration            # run retrieval, save the records, report
    python -m bench.share_calibration --saved    # report from the saved records

The three newest sets are never run here: they are checked in aggregate only (devsets)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.fit_candidate_ranking import _prose, load_groups
from bench.listwise_ranking import fit
from bench.retrieval_projects import DEVELOPMENT_SETS, labels, mapped, needed
from swetui.engine.retrieval_spans import _direct_hits
from swetui.engine.symbols import candidate_weights, learned_ranking, lookup
from swetui.engine.symbols.lookup import Relevance
from swetui.engine.symbols.semantic import MODEL, SemanticRanker, VectorCache
from swetui.engine.symbols.symbol_map import SymbolIndex

DECIDE = DEVELOPMENT_SETS[:-3]
"""The sets decisions are made on; the three newest are held back."""
RECORDS = Path("/tmp/share_calibration.json")
BANDS = (0.0, 0.5, 0.7, 0.85, 0.95, 1.0001)


def _overlaps(rel: str, start: int, end: int, needs: Sequence[Any]) -> bool:
    return any(need.path == rel and any(a <= end and start <= b for a, b in need.ranges)
               for need in needs)


def run(sets: Sequence[tuple[str, Path]] = DECIDE) -> list[dict[str, Any]]:
    groups = load_groups()
    fitted = {g.set_name for g in groups}
    records: list[dict[str, Any]] = []
    indexes: dict[Path, SymbolIndex] = {}
    cache = VectorCache()
    real = lookup.place_share
    for set_name, path in sets:
        weights = fit([g for g in groups if g.set_name != set_name], True) \
            if set_name in fitted else candidate_weights.WITH_MEANING
        data = labels(path)
        for request in data["requests"]:
            root, index = mapped(data["projects"][request["project"]], indexes)
            near, prose = _prose(root, request["request"])
            seen: list[Any] = []

            def spy(chosen: list[Any], seen: list[Any] = seen) -> float:
                value = real(chosen)
                seen.append((list(chosen), value))
                return value

            lookup.place_share = spy
            try:
                _direct_hits(index, prose, near, Relevance(index, prose, near=near),
                             SemanticRanker(root, MODEL, cache), weights)
            finally:
                lookup.place_share = real
            if not seen:
                continue
            chosen, value = seen[0]
            needs = needed(root, request["needs"])
            scores = [s for s, _r, _d in chosen]
            _s, first_rel, first = chosen[0]
            place = [rel == first_rel and lookup._nested(first, d) for _s, rel, d in chosen]
            records.append({
                "set": set_name, "share": value, "scores": scores, "place": place,
                "needed": [_overlaps(rel, d.start, d.end, needs) for _s, rel, d in chosen],
                "first": _overlaps(first_rel, first.start, first.end, needs)})
        print("ran a set", file=sys.stderr, flush=True)
    return records


def shared(record: dict[str, Any], temperature: float) -> float:
    return learned_ranking.share([temperature * s for s in record["scores"]], record["place"])


def likelihood(records: Sequence[dict[str, Any]], temperature: float) -> float:
    total = 0.0
    for record in records:
        p = min(max(shared(record, temperature), 1e-9), 1 - 1e-9)
        total += math.log(p if record["first"] else 1 - p)
    return total


def table(records: Sequence[dict[str, Any]], temperature: float) -> str:
    lines = [f"temperature {temperature:.2f}: log-likelihood "
             f"{likelihood(records, temperature):.2f}",
             "share band    requests  mean share  first right"]
    for low, high in zip(BANDS, BANDS[1:], strict=False):
        inside = [r for r in records if low <= shared(r, temperature) < high]
        if inside:
            mean = sum(shared(r, temperature) for r in inside) / len(inside)
            right = sum(r["first"] for r in inside)
            lines.append(f"{low:.2f}-{min(high, 1.0):.2f}   {len(inside):>8}  {mean:10.2f}  "
                         f"{right:>4} ({100 * right / len(inside):.0f}%)")
    for cut in (0.7, 0.8, 0.85, 0.9, 0.95):
        above = [r for r in records if shared(r, temperature) >= cut]
        right = sum(r["first"] for r in above)
        lines.append(f"share >= {cut:.2f}: {right} of {len(above)} first picks right"
                     f" ({100 * right / max(len(above), 1):.0f}%)")
    return "\n".join(lines)


def best_temperature(records: Sequence[dict[str, Any]]) -> float:
    grid = [round(0.05 * n, 2) for n in range(2, 41)]
    return max(grid, key=lambda t: likelihood(records, t))


def main() -> None:
    if "--held-back" in sys.argv:  # a check in aggregate: pooled bands, no request shown
        pooled = run(DEVELOPMENT_SETS[-3:])
        print(f"{len(pooled)} described requests of the three held-back sets, pooled\n")
        print(table(pooled, 1.0))
        return
    if "--saved" in sys.argv:
        records = json.loads(RECORDS.read_text(encoding="utf-8"))
    else:
        records = run()
        RECORDS.write_text(json.dumps(records) + "\n", encoding="utf-8")
    print(f"{len(records)} described requests of {len(DECIDE)} sets, out of sample\n")
    print(table(records, 1.0))
    temperature = best_temperature(records)
    print()
    print(table(records, temperature))
    above = [r for r in records if r["share"] >= lookup.SURE]
    right = sum(r["first"] for r in above)
    print(f"\nattached as code (share >= lookup.SURE = {lookup.SURE}): {right} of {len(above)} "
          f"first picks right, against a target of {lookup.PRECISION_TARGET}")
    if right < lookup.PRECISION_TARGET * len(above):
        sys.exit("FAIL: out of sample, the cut attaches code less often right than its target")


if __name__ == "__main__":
    main()
