"""Unified diffs, hunk splitting and applying selected hunks."""

from __future__ import annotations

import itertools

from swetui.agent.diffs import apply_hunks, compute_hunks, unified_diff

OLD = "".join(f"line {n}\n" for n in range(1, 41))
NEW = OLD.replace("line 3\n", "line three\n").replace("line 20\n", "").replace(
    "line 38\n", "line 38\nline 38.5\n")


def test_hunks_and_headers():
    hunks = compute_hunks(OLD, NEW)
    assert [h.header for h in hunks] == ["@@ -1,6 +1,6 @@", "@@ -17,7 +17,6 @@",
                                         "@@ -36,5 +35,6 @@"]
    assert [(h.added, h.removed) for h in hunks] == [(1, 1), (0, 1), (1, 0)]
    assert hunks[0].lines[2:4] == ["-line 3", "+line three"]


def test_every_subset_of_hunks_applies_cleanly():
    for size in range(4):
        for subset in itertools.combinations(range(3), size):
            result = apply_hunks(OLD, NEW, subset)
            assert ("line three\n" in result) == (0 in subset)
            assert ("line 20\n" not in result) == (1 in subset)
            assert ("line 38.5\n" in result) == (2 in subset)
    assert apply_hunks(OLD, NEW, [0, 1, 2]) == NEW and apply_hunks(OLD, NEW, []) == OLD


def test_unified_diff_names_and_new_file():
    diff = unified_diff("a\n", "b\n", "src/x.py")
    assert diff.startswith("--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    created = unified_diff(None, "hello\n", "new.txt")
    assert created.startswith("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello")
    assert unified_diff("same\n", "same\n", "x") == ""


def test_missing_final_newline_is_marked_and_kept():
    hunks = compute_hunks("a\nb", "a\nc")
    assert "\\ No newline at end of file" in hunks[0].lines
    assert apply_hunks("a\nb", "a\nc", [0]) == "a\nc"


def test_form_feed_is_not_a_line_break():
    old, new = "x\x0cy\nz\n", "x\x0cy\nZ\n"
    assert len(compute_hunks(old, new)[0].lines) == 3
    assert apply_hunks(old, new, [0]) == new
