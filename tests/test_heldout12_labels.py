"""Held-out set 12 (`bench/retrieval_labels_heldout12.json`) is sealed for the next session:
it is no development set and repeats none of their labels (its format and labels are checked
with every set's, in test_label_sets.py). These checks never run retrieval on it and print no
request's text or label."""

from __future__ import annotations

import re
from pathlib import Path

from bench.retrieval_projects import DEVELOPMENT_SETS, labels

HELD_OUT_12 = Path(__file__).resolve().parents[1] / "bench" / "retrieval_labels_heldout12.json"
_REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)==([0-9][A-Za-z0-9.]*)$")


def test_no_label_of_the_set_is_already_labelled_in_a_development_set() -> None:
    def labelled(path: Path) -> set[tuple[str, str, str]]:
        return {(request["project"], need["path"], symbol)
                for request in labels(path)["requests"]
                for need in request["needs"] for symbol in need["symbols"]}
    seen = set().union(*(labelled(path) for _, path in DEVELOPMENT_SETS))
    again = len(labelled(HELD_OUT_12) & seen)  # a count: the labels themselves stay sealed
    assert again == 0, f"{again} labels of held-out set 12 are in a development set"


def test_the_sealed_set_is_not_among_the_development_sets() -> None:
    assert HELD_OUT_12.name not in {path.name for _, path in DEVELOPMENT_SETS}
