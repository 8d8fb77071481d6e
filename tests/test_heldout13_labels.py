"""Held-out set 13 (`bench/retrieval_labels_heldout13.json`) is sealed for a later session: it
is no development set and repeats none of their labels (set 12's among them; its format
and labels are checked with every set's, in test_label_sets.py). These checks never run
retrieval on it and print no request's text or label."""

from __future__ import annotations

from pathlib import Path

from bench.retrieval_projects import DEVELOPMENT_SETS, labels

BENCH = Path(__file__).resolve().parents[1] / "bench"
HELD_OUT_13 = BENCH / "retrieval_labels_heldout13.json"


def labelled(path: Path) -> set[tuple[str, str, str]]:
    """(pinned project, file, symbol) of every need of a set: the project by its requirement,
    so two sets naming the same project differently still compare."""
    data = labels(path)
    return {(data["projects"][request["project"]]["requirement"], need["path"], symbol)
            for request in data["requests"]
            for need in request["needs"] for symbol in need["symbols"]}


def test_no_label_of_the_set_is_already_labelled_in_a_development_set() -> None:
    seen = set().union(*(labelled(path) for _, path in DEVELOPMENT_SETS))
    again = len(labelled(HELD_OUT_13) & seen)  # a count: the labels themselves stay sealed
    assert again == 0, f"{again} labels of held-out set 13 are in a development set"


def test_the_sealed_set_is_not_among_the_development_sets() -> None:
    names = {path.name for _, path in DEVELOPMENT_SETS}
    assert HELD_OUT_13.name not in names
