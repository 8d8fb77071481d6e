"""Every labelled set of the retrieval benchmark (the development sets and the sealed held-out
sets 14 and 15) names pinned projects and what each request needs, and every needed definition
is where its label says, read with the standard library's `ast` (`needed()`), never with the
map under test. A project whose sdist is not unpacked in the benchmark's cache is skipped
(nothing is downloaded here), and the skip names it. Failures name a request by its
number, never its text or labels: a sealed set stays sealed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.retrieval_projects import DEVELOPMENT_SETS, cache_dir, labels, needed, project_root

BENCH = Path(__file__).resolve().parents[1] / "bench"
HELD_OUT_15 = BENCH / "retrieval_labels_heldout15.json"
SEALED = [("held out 15", HELD_OUT_15)]
"""Written blind, never run yet: each is checked here for its format, never run."""
SETS = [*DEVELOPMENT_SETS, *SEALED]
_REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)==([0-9][A-Za-z0-9.]*)$")


def labelled(path: Path) -> set[tuple[str, str, str]]:
    """(pinned project, file, symbol) of every need of a set: the project by its requirement,
    so two sets naming the same project differently still compare (the sealed sets' checks
    that they repeat no development set's label)."""
    data = labels(path)
    return {(data["projects"][request["project"]]["requirement"], need["path"], symbol)
            for request in data["requests"]
            for need in request["needs"] for symbol in need["symbols"]}


@pytest.mark.parametrize("path", [path for _, path in SETS], ids=[name for name, _ in SETS])
def test_every_request_names_a_pinned_project_and_what_it_needs(path: Path) -> None:
    data = labels(path)
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


@pytest.mark.parametrize("path", [path for _, path in SETS], ids=[name for name, _ in SETS])
def test_every_needed_definition_is_defined_where_the_label_says(path: Path) -> None:
    data = labels(path)
    present = {name for name, project in data["projects"].items()
               if (cache_dir() / project["root"]).is_dir()}
    if not present:
        pytest.skip(f"no project of {path.name} is unpacked in the benchmark's cache")
    left_out = [request["project"] for request in data["requests"]
                if request["project"] not in present]
    for number, request in enumerate(data["requests"], 1):
        if request["project"] not in present:
            continue
        project = data["projects"][request["project"]]
        root = project_root(project["requirement"], project["root"])
        try:
            found = needed(root, request["needs"])
        except (OSError, ValueError):  # failed outside: the error would show the label
            found = None
        if found is None:
            pytest.fail(f"request {number} of {path.name} names a definition that is not "
                        f"there", pytrace=False)
        assert all(need.ranges for need in found), f"request {number}: a need has no lines"
    if left_out:  # the rest passed; said, never passed over in silence
        pytest.skip(f"{path.name}: {len(data['requests']) - len(left_out)} requests checked; "
                    "not unpacked in the benchmark's cache, so not checked: " + ", ".join(
                        f"{data['projects'][name]['root']} ({left_out.count(name)} requests)"
                        for name in dict.fromkeys(left_out)))


@pytest.mark.parametrize("path", [path for _, path in SEALED], ids=[name for name, _ in SEALED])
def test_a_sealed_set_is_no_development_set_and_repeats_none_of_their_labels(
        path: Path) -> None:
    assert path.name not in {development.name for _, development in DEVELOPMENT_SETS}
    seen = set().union(*(labelled(development) for _, development in DEVELOPMENT_SETS))
    again = len(labelled(path) & seen)  # a count: the labels themselves stay sealed
    assert again == 0, f"{again} labels of {path.name} are in a development set"
