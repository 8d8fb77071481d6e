"""Helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def timings(function: Callable[[], Any], repeat: int) -> list[float]:
    """Seconds per call, `repeat` calls."""
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        out.append(time.perf_counter() - start)
    return out


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: list[float]) -> float:
    return statistics.median(values)


def entry(name: str, value: float, unit: str, *, baseline: float | None, ratio: float | None,
          target: str, passed: bool, **extra: Any) -> dict[str, Any]:
    return {"name": name, "value": round(value, 4), "unit": unit,
            "baseline": None if baseline is None else round(baseline, 4),
            "ratio": None if ratio is None else round(ratio, 2), "target": target,
            "pass": bool(passed), **extra}
