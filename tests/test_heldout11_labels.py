"""Set 11 (`bench/retrieval_labels_heldout11.json`), written blind, run once as a held-out set
and a development set since: its labels are read with the standard library's `ast`
(`needed()`). A project whose sdist is not unpacked in the
benchmark's cache is skipped (nothing is downloaded here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.retrieval_projects import DEVELOPMENT_SETS, cache_dir, labels, needed, project_root

HELD_OUT_11 = Path(__file__).resolve().parents[1] / "bench" / "retrieval_labels_heldout11.json"
_REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)==([0-9][A-Za-z0-9.]*)$")


def test_every_request_names_a_pinned_project_and_what_it_needs() -> None:
    data = labels(HELD_OUT_11)
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


def test_every_needed_definition_is_defined_where_the_label_says() -> None:
    data = labels(HELD_OUT_11)
    present = {name for name, project in data["projects"].items()
               if (cache_dir() / project["root"]).is_dir()}
    if not present:
        pytest.skip("no project of held-out set 11 is unpacked in the benchmark's cache")
    for number, request in enumerate(data["requests"], 1):
        if request["project"] not in present:
            continue
        project = data["projects"][request["project"]]
        root = project_root(project["requirement"], project["root"])
        try:
            found = needed(root, request["needs"])
        except (OSError, ValueError):  # not the labels' text: the set stays sealed
            pytest.fail(f"request {number} of held-out set 11 names a definition that is "
                        f"not there")
        assert all(need.ranges for need in found), f"request {number}: a need has no lines"


def test_the_set_run_once_is_a_development_set() -> None:
    assert HELD_OUT_11.name in {path.name for _, path in DEVELOPMENT_SETS}
