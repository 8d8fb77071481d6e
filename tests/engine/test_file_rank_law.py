"""The file ranking's rounds run in a plain loop for a small map and in numpy for a large one:
for any graph both give the ranks a plain loop over the edges gives, to the last bit (the
outline's order and look-ups' ties depend on them, whatever the map's size); each file's
edges leave it once (its total is the file's)."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols.file_rank import Edges, ranks_in_a_loop, ranks_in_numpy


def _loop(count: int, edges: list[tuple[int, list[int], list[float], float]], rounds: int,
          damping: float) -> list[float]:
    rank = [1.0 / count] * count
    for _ in range(rounds):
        new = [(1.0 - damping) / count] * count
        for source, targets, weights, total in edges:
            share = damping * rank[source] / total
            for target, weight in zip(targets, weights, strict=True):
                new[target] += share * weight
        rank = new
    return rank


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, list[int], list[float], float]]]:
    count = draw(st.integers(1, 12))
    edges = []
    for source in draw(st.lists(st.integers(0, count - 1), max_size=count, unique=True)):
        targets = draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=6))
        weights = draw(st.lists(st.floats(0.01, 50.0), min_size=len(targets),
                                max_size=len(targets)))
        edges.append((source, targets, weights, sum(weights)))
    return count, edges


@pytest.mark.parametrize("rounds_of", [ranks_in_a_loop, ranks_in_numpy])
@settings(max_examples=200)
@given(graph=graphs(), rounds=st.integers(0, 25))
def test_the_rounds_give_the_loops_ranks_exactly(rounds_of, graph, rounds) -> None:
    count, edges = graph
    edges.sort()  # the map lists each file's edges together, the files in order
    columns = Edges(array("i"), array("d"), array("i", [0] * count), array("d", [0.0] * count))
    for source, targets, weights, total in edges:
        columns.targets.extend(targets)
        columns.weights.extend(weights)
        columns.degrees[source] = len(targets)
        columns.totals[source] = total
    assert rounds_of(count, columns, rounds, 0.85) == _loop(count, edges, rounds, 0.85)
