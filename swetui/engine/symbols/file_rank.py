"""How much each file of the workspace is used: PageRank over 'file A references a name file B
defines', as a repository map ranks files (the outline lists files by it, look-ups break
ties with it)."""

from __future__ import annotations

import math
from array import array
from typing import NamedTuple

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
    edges = Edges(array("q"), array("q"), array("d"), array("d"))
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
            edges.sources.extend([number[rel]] * len(out))
            edges.targets.extend([number[target] for target in out])
            edges.weights.extend(out.values())
            edges.totals.extend([total] * len(out))
    return dict(zip(files, iterate_ranks(len(files), edges, rounds, damping), strict=True))


class Edges(NamedTuple):
    """Every weighted reference from one file to another, in columns (8 bytes an edge each,
    where lists of Python floats took 32): its file, the file it reaches, its weight, and
    the sum of its file's weights."""

    sources: array[int]
    targets: array[int]
    weights: array[float]
    totals: array[float]


def iterate_ranks(count: int, edges: Edges, rounds: int, damping: float) -> list[float]:
    """PageRank's rounds in numpy, with the same sums in the same order as a loop over the
    edges would make (so the same ranks to the last bit): `bincount` adds its weights in
    the order given, each file's base share first; each round in place."""
    size = len(edges.sources)
    sources = np.frombuffer(edges.sources, dtype=np.int64) if size else np.empty(0, np.int64)
    totals = np.frombuffer(edges.totals, dtype=np.float64) if size else np.empty(0)
    weights = np.frombuffer(edges.weights, dtype=np.float64) if size else np.empty(0)
    slots = np.empty(count + size, dtype=np.int64)
    slots[:count] = np.arange(count)
    slots[count:] = np.frombuffer(edges.targets, dtype=np.int64) if size else 0
    values = np.empty(count + size)  # each file's base share, then every edge's share
    values[:count] = (1.0 - damping) / count
    shares = values[count:]
    rank = np.full(count, 1.0 / count)
    for _ in range(rounds):  # the loop's order: damping * rank / total * weight
        np.take(rank, sources, out=shares)
        shares *= damping
        shares /= totals
        shares *= weights
        rank = np.bincount(slots, values, minlength=count)
    return [float(value) for value in rank]
