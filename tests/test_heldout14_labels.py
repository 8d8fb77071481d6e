"""Held-out set 14 (`bench/retrieval_labels_heldout14.json`) is sealed for a later session: it
is no development set, repeats none of their labels, and every definition it labels is where
its label says (read with the standard library's `ast`, `needed()`, never with the map under
test). A project whose sdist is not unpacked in the benchmark's cache is skipped (nothing is
downloaded here; its new project, marshmallow, is fetched by `project_root` at the set's one
run). These checks never run retrieval on it, and failures name a request by its number,
never its text or labels."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from bench.retrieval_projects import DEVELOPMENT_SETS, cache_dir, labels, needed, project_root

HELD_OUT_14 = Path(__file__).resolve().parents[1] / "bench" / "retrieval_labels_heldout14.json"
NEW_PROJECT = "marshmallow==3.26.1"
KINDS = ("described", "error", "naming")
_REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)==([0-9][A-Za-z0-9.]*)$")


def labelled(path: Path) -> set[tuple[str, str, str]]:
    """(pinned project, file, symbol) of every need of a set: the project by its requirement,
    so two sets naming the same project differently still compare."""
    data = labels(path)
    return {(data["projects"][request["project"]]["requirement"], need["path"], symbol)
            for request in data["requests"]
            for need in request["needs"] for symbol in need["symbols"]}


def requirements() -> Counter[str]:
    data = labels(HELD_OUT_14)
    return Counter(data["projects"][request["project"]]["requirement"]
                   for request in data["requests"])


def test_no_label_of_the_set_is_already_labelled_in_a_development_set() -> None:
    seen = set().union(*(labelled(path) for _, path in DEVELOPMENT_SETS))
    again = len(labelled(HELD_OUT_14) & seen)  # a count: the labels themselves stay sealed
    assert again == 0, f"{again} labels of held-out set 14 are in a development set"


def test_the_sealed_set_is_not_among_the_development_sets() -> None:
    names = {path.name for _, path in DEVELOPMENT_SETS}
    assert HELD_OUT_14.name not in names


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


def test_every_request_names_a_pinned_project_and_what_it_needs() -> None:
    data = labels(HELD_OUT_14)
    for name, project in data["projects"].items():
        pinned = _REQUIREMENT.match(project["requirement"])
        assert pinned, f"project {name}: requirement is not pinned as name==version"
        assert project["root"].endswith(f"-{pinned.group(2)}"), f"project {name}: root"
    for number, request in enumerate(data["requests"], 1):
        assert request["project"] in data["projects"], f"request {number}: unknown project"
        assert request["request"].strip(), f"request {number}: empty"
        assert request["needs"], f"request {number}: needs nothing"
        for need in request["needs"]:
            assert need["path"] and need["symbols"], f"request {number}: empty need"


@pytest.mark.parametrize("name", sorted(labels(HELD_OUT_14)["projects"]))
def test_every_needed_definition_is_defined_where_the_label_says(name: str) -> None:
    data = labels(HELD_OUT_14)
    project = data["projects"][name]
    if not (cache_dir() / project["root"]).is_dir():
        pytest.skip(f"{project['root']} is not unpacked in the benchmark's cache")
    root = project_root(project["requirement"], project["root"])
    for number, request in enumerate(data["requests"], 1):
        if request["project"] != name:
            continue
        try:
            found = needed(root, request["needs"])
        except (OSError, ValueError):  # failed outside: the error would show the label
            found = None
        if found is None:
            pytest.fail(f"request {number} names a definition that is not there", pytrace=False)
        assert all(need.ranges for need in found), f"request {number}: a need has no lines"
