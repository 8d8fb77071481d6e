"""Held-out set 14 (`bench/retrieval_labels_heldout14.json`) is sealed for a later session: it
asks what its writer meant it to (that it is no development set and repeats none of their
labels, its format, and that every definition it labels is where its label says, are
checked with every set's in test_label_sets.py; its new project, marshmallow, is fetched by
`project_root` at the set's one run). These checks never run retrieval on it, and failures
name a request by its number, never its text or labels."""

from __future__ import annotations

from collections import Counter

from bench.retrieval_projects import DEVELOPMENT_SETS, labels
from tests.test_label_sets import HELD_OUT_14

NEW_PROJECT = "marshmallow==3.26.1"
KINDS = ("described", "error", "naming")


def requirements() -> Counter[str]:
    data = labels(HELD_OUT_14)
    return Counter(data["projects"][request["project"]]["requirement"]
                   for request in data["requests"])


def test_the_new_project_is_in_no_development_set() -> None:
    used = {project["requirement"].split("==")[0].lower()
            for _, path in DEVELOPMENT_SETS for project in labels(path)["projects"].values()}
    assert NEW_PROJECT.split("==")[0] not in used


def test_about_thirty_requests_mostly_on_the_new_project_two_or_three_on_each_other() -> None:
    counts = requirements()
    assert 28 <= sum(counts.values()) <= 33, "the set has about 30 requests"
    assert 10 <= counts.pop(NEW_PROJECT) <= 12, "10-12 requests on the new project"
    assert len(counts) == 8, "the eight projects of the earlier sets are all asked about"
    low = [name for name, count in counts.items() if not 2 <= count <= 3]
    assert not low, f"projects without 2-3 requests: {low}"


def test_about_half_describe_behaviour_a_third_paste_errors_the_rest_name_code() -> None:
    kinds = Counter(request.get("kind") for request in labels(HELD_OUT_14)["requests"])
    assert set(kinds) <= set(KINDS), "every request says which kind it is"
    total = sum(kinds.values())
    assert 0.4 <= kinds["described"] / total <= 0.6
    assert 0.25 <= kinds["error"] / total <= 0.4
    assert kinds["naming"] >= 3
