"""Structural compaction of realistic sessions of 50k, 200k and 800k tokens: latency against
a full recount of the same session, as a session runs it (each item analysed when it
arrived, that cost reported per item) and cold (every folded output read during the
compaction), linearity (800k in at most 5x the 200k
time), reduction, and retention of every path, identifier and error line of the folded
turns measured by an independent extractor (`bench.retention`, DESIGN §9)."""

from __future__ import annotations

import time
from typing import Any

from bench.common import entry, median, timings
from bench.retention import extract, request_text, retention
from swetui.engine.compaction import StructuralCompactor, undo
from swetui.engine.compaction.sample import make_session
from swetui.engine.compaction.text import clear_caches
from swetui.engine.compaction.warm import warm
from swetui.engine.items import ItemKind
from swetui.engine.recount import recount_all

SIZES = (50_000, 200_000, 800_000)
RUNS = {50_000: 5, 200_000: 5, 800_000: 3}


def _compact(engine: Any, compactor: StructuralCompactor) -> tuple[Any, float, float]:
    started = time.perf_counter()
    plan = compactor.plan(engine)
    planned = time.perf_counter()
    finished = compactor.apply(engine, plan, trigger="auto")
    return finished, (planned - started) * 1000, (time.perf_counter() - planned) * 1000


def _one(size: int, seed: int) -> dict[str, Any]:
    """Cold (every folded output read during the compaction), then as a session runs it
    (each item's identifiers and error lines worked out when it arrived: `warm`, timed
    per item), each against a full recount of the same session."""
    compactor = StructuralCompactor()
    engine = make_session(size, seed=seed, limit=max(400_000, 2 * size))
    baseline = timings(lambda: recount_all(engine), 1)[0] * 1000  # naive: re-tokenise everything
    before = engine.assemble().request.canonical_json()
    originals = {item.id: item for item in engine}
    clear_caches()
    _, cold_plan, cold_apply = _compact(engine, compactor)
    undo(engine)
    clear_caches()
    arrived = time.perf_counter()
    for item in engine:
        warm(item)
    warm_us = (time.perf_counter() - arrived) * 1e6 / len(engine)
    finished, plan_ms, apply_ms = _compact(engine, compactor)
    folded = [originals[item_id] for item_id in finished.folded
              if originals[item_id].kind is not ItemKind.EXCHANGE_DIGEST]
    kept = retention(extract(folded), request_text(engine))
    undo(engine)
    return {"ms": plan_ms + apply_ms, "plan_ms": plan_ms, "apply_ms": apply_ms,
            "cold_ms": cold_plan + cold_apply, "warm_us": warm_us, "baseline": baseline,
            "reduction": finished.reduction, "kept": kept,
            "undo_exact": engine.assemble().request.canonical_json() == before}


def run() -> list[dict[str, Any]]:
    results: dict[int, list[dict[str, Any]]] = {
        size: [_one(size, seed) for seed in range(RUNS[size])] for size in SIZES}
    out: list[dict[str, Any]] = []
    times = {size: median([r["ms"] for r in runs]) for size, runs in results.items()}
    for size, runs in results.items():
        base = median([r["baseline"] for r in runs])
        label = f"{size // 1000}k"
        target = "<= 100 ms (plan + apply, items analysed on arrival)" if size == 200_000 \
            else "reported"
        out.append(entry(f"compaction_structural_{label}", times[size], "ms median",
                         baseline=base, ratio=base / times[size], target=target,
                         passed=times[size] <= 100 if size == 200_000 else True,
                         plan_ms=round(median([r["plan_ms"] for r in runs]), 2),
                         apply_ms=round(median([r["apply_ms"] for r in runs]), 2),
                         cold_ms=round(median([r["cold_ms"] for r in runs]), 2),
                         cold_ratio=round(base / median([r["cold_ms"] for r in runs]), 2),
                         arrival_us_per_item=round(median([r["warm_us"] for r in runs]), 1),
                         runs=len(runs)))
    scale = times[800_000] / times[200_000]
    out.append(entry("compaction_linear_800k_vs_200k", scale, "x time", baseline=None,
                     ratio=None, target="<= 5x for 4x the tokens", passed=scale <= 5))
    reductions = [r["reduction"] for r in results[200_000]]
    out.append(entry("compaction_reduction_200k", min(reductions), "% min", baseline=None,
                     ratio=None, target=">= 60% reduction", passed=min(reductions) >= 60,
                     median=round(median(reductions), 2)))
    every = [r for runs in results.values() for r in runs]
    for label in ("paths", "identifiers", "errors"):
        kept = sum(r["kept"][label][0] for r in every)
        wanted = sum(r["kept"][label][1] for r in every)
        missing = sorted({m for r in every for m in r["kept"][label][2]})[:5]
        out.append(entry(f"compaction_retention_{label}", 100.0 * kept / max(1, wanted),
                         "% kept", baseline=None, ratio=None,
                         target="100%, independent extractor; undo exact",
                         passed=kept == wanted and all(r["undo_exact"] for r in every),
                         wanted=wanted, missing=missing))
    return out


if __name__ == "__main__":
    for result in run():
        print(result)
