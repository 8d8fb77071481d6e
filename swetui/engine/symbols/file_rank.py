"""How much each file of the workspace is used: PageRank over 'file A references a name file B
defines', as a repository map ranks files (the outline lists files by it, look-ups break
ties with it)."""

from __future__ import annotations

import math

import numpy as np

from swetui.engine.symbols.extract import Definition, FileSymbols


def rank_files(by_file: dict[str, FileSymbols], by_name: dict[str, list[tuple[str, Definition]]],
               rounds: int = 20, damping: float = 0.85) -> dict[str, float]:
    """PageRank over 'file A references a name file B defines' (weighted by how often, and
    split among the files defining that name), as a repository map ranks files."""
    files = list(by_file)
    if not files:
        return {}
    definers: dict[str, frozenset[str]] = {}
    for name, defined in by_name.items():
        if len(defined) <= 20:  # `__init__`, `get`: names defined everywhere say nothing
            definers[name] = frozenset(where for where, _ in defined)
    number = {rel: n for n, rel in enumerate(files)}
    edges: list[tuple[int, list[int], list[float], float]] = []
    for rel, symbols in by_file.items():
        out: dict[str, float] = {}
        for name, count in symbols.references.items():
            found = definers.get(name)
            if found is None:
                continue
            if rel in found:
                found = found - {rel}
                if not found:
                    continue
            weight = math.sqrt(count) / len(found)
            for target in found:
                out[target] = out.get(target, 0.0) + weight
        total = sum(out.values())
        if total:
            edges.append((number[rel], [number[target] for target in out], list(out.values()),
                          total))
    return dict(zip(files, iterate_ranks(len(files), edges, rounds, damping), strict=True))


def iterate_ranks(count: int, edges: list[tuple[int, list[int], list[float], float]], rounds: int,
             damping: float) -> list[float]:
    """PageRank's rounds in numpy, with the same sums in the same order as a loop over the
    edges would make (so the same ranks to the last bit): `bincount` adds its weights in
    the order given, each file's base share first."""
    sources = np.array([source for source, targets, _w, _t in edges for _ in targets],
                       dtype=np.intp)
    targets = np.array([target for _s, targets, _w, _t in edges for target in targets],
                       dtype=np.intp)
    weights = np.array([weight for _s, _t, weights, _total in edges for weight in weights],
                       dtype=np.float64)
    totals = np.array([total for _s, targets, _w, total in edges for _ in targets],
                      dtype=np.float64)
    slots = np.concatenate([np.arange(count, dtype=np.intp), targets])
    base = np.full(count, (1.0 - damping) / count)
    rank = np.full(count, 1.0 / count)
    for _ in range(rounds):
        shares = damping * rank[sources] / totals * weights
        rank = np.bincount(slots, np.concatenate([base, shares]), minlength=count)
    return [float(value) for value in rank]
