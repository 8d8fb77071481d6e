"""How much each file of the workspace is used: PageRank over 'file A references a name file B
defines', as a repository map ranks files (the outline lists files by it, look-ups break
ties with it)."""

from __future__ import annotations

import math

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
    # by file number, not name: the same sums in the same order, a third of the time
    rank = [1.0 / len(files)] * len(files)
    for _ in range(rounds):
        new = [(1.0 - damping) / len(files)] * len(files)
        for source, targets, weights, total in edges:
            share = damping * rank[source] / total
            for number_of, weight in zip(targets, weights, strict=True):
                new[number_of] += share * weight
        rank = new
    return dict(zip(files, rank, strict=True))
