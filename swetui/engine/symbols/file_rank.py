"""How much each file of the workspace is used: PageRank over 'file A references a name file B
defines', as a repository map ranks files (the outline lists files by it, look-ups break
ties with it)."""

from __future__ import annotations

import math
from array import array
from typing import NamedTuple

from swetui.engine.symbols.extract import Definition, FileSymbols

LOOP_EDGES = 5_000
"""Up to this many edges (20 rounds: about 20 ms of CPU) the rounds run in a plain loop, in
less time than importing numpy takes (about 0.11 s of CPU): a small workspace's `swetui run`
or first frame never loads numpy for its map."""

MAX_DEFINERS = 20
"""Names defined in more files than this (`__init__`, `get`) say nothing of who uses whom."""


class Edges(NamedTuple):
    """Every weighted reference from one file to another, in columns, the edges of each
    file together and the files in order: the file each reaches and its weight; per file,
    how many edges leave it and the sum of their weights (16 bytes an edge in all; the
    ranking of a 10,000-file map has about 1.2 million)."""

    targets: array[int]
    weights: array[float]
    degrees: array[int]
    totals: array[float]


def rank_files(by_file: dict[str, FileSymbols], by_name: dict[str, list[tuple[str, Definition]]],
               rounds: int = 20, damping: float = 0.85) -> dict[str, float]:
    """PageRank over 'file A references a name file B defines' (weighted by how often, and
    split among the files defining that name), as a repository map ranks files."""
    files = list(by_file)
    if not files:
        return {}
    return dict(zip(files, iterate_ranks(len(files), edges_of(files, by_file, by_name),
                                         rounds, damping), strict=True))


def edges_of(files: list[str], by_file: dict[str, FileSymbols],
             by_name: dict[str, list[tuple[str, Definition]]]) -> Edges:
    """The graph's edges, files numbered by their place in `files` (a name's definers are a
    tuple of numbers while they are gathered, dropped before the rounds run)."""
    number = {rel: n for n, rel in enumerate(files)}
    definers: dict[str, tuple[int, ...]] = {}
    for name, defined in by_name.items():
        if len(defined) <= MAX_DEFINERS:
            definers[name] = tuple(dict.fromkeys(number[where] for where, _ in defined
                                                 if where in number))
    edges = Edges(array("i"), array("d"), array("i", bytes(4 * len(files))),
                  array("d", bytes(8 * len(files))))
    for source, rel in enumerate(files):
        out: dict[int, float] = {}
        references = by_file[rel].references  # each name's definers found in C: most have none
        for found, count in zip(map(definers.get, references), references.values(), strict=True):
            if not found:
                continue
            if source in found:
                found = tuple(target for target in found if target != source)
                if not found:
                    continue
            weight = math.sqrt(count) / len(found)
            for target in found:
                out[target] = out.get(target, 0.0) + weight
        total = sum(out.values())
        if total:
            edges.targets.extend(out)
            edges.weights.extend(out.values())
            edges.degrees[source] = len(out)
            edges.totals[source] = total
    return edges


def iterate_ranks(count: int, edges: Edges, rounds: int, damping: float) -> list[float]:
    """PageRank's rounds: each file's `damping * rank / total` once a round, times each of its
    edges' weights, added to the files they reach after each file's base share, the files
    (and each file's edges) in order. A plain loop for a small graph, numpy for a large one:
    the same sums in the same order, so the same ranks to the last bit."""
    if len(edges.targets) <= LOOP_EDGES:
        return ranks_in_a_loop(count, edges, rounds, damping)
    return ranks_in_numpy(count, edges, rounds, damping)


def ranks_in_a_loop(count: int, edges: Edges, rounds: int, damping: float) -> list[float]:
    """The rounds over the edges, file by file."""
    targets, weights, degrees, totals = edges
    rank = [1.0 / count] * count
    for _ in range(rounds):
        new = [(1.0 - damping) / count] * count
        first = 0
        for source, degree in enumerate(degrees):
            if degree:
                share = damping * rank[source] / totals[source]
                for edge in range(first, first + degree):
                    new[targets[edge]] += share * weights[edge]
                first += degree
        rank = new
    return rank


def ranks_in_numpy(count: int, edges: Edges, rounds: int, damping: float) -> list[float]:
    """The rounds in numpy: `bincount` adds the shares in the order given, each file's base
    share first."""
    import numpy as np  # here: a small map's ranking never pays numpy's import (LOOP_EDGES)

    size = len(edges.targets)
    weights = np.frombuffer(edges.weights, dtype=np.float64) if size else np.empty(0)
    degrees = np.frombuffer(edges.degrees, dtype=np.int32)
    totals = np.frombuffer(edges.totals, dtype=np.float64)
    totals = np.where(totals > 0, totals, 1.0)  # a file without edges gives no share
    slots = np.empty(count + size, dtype=np.int64)
    slots[:count] = np.arange(count)
    slots[count:] = np.frombuffer(edges.targets, dtype=np.int32) if size else 0
    values = np.empty(count + size)  # each file's base share, then every edge's share
    values[:count] = (1.0 - damping) / count
    shares = values[count:]
    per_file = np.empty(count)
    rank = np.full(count, 1.0 / count)
    for _ in range(rounds):  # the loop's order: damping * rank / total * weight
        np.multiply(rank, damping, out=per_file)
        per_file /= totals
        shares[:] = np.repeat(per_file, degrees)
        shares *= weights
        rank = np.bincount(slots, values, minlength=count)
    return [float(value) for value in rank]
