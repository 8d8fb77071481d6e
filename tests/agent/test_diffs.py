"""Unified diffs, hunk splitting and applying selected hunks."""

from __future__ import annotations

import itertools

import pytest

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


def numbered(count: int) -> list[str]:
    return [f"line {n}\n" for n in range(1, count + 1)]


def test_partial_hunks_of_a_100_line_file_keep_every_other_line():
    # Issue 9: keeping one hunk (or both) of a 100-line file wrote a 17-line file.
    old_lines = numbered(100)
    new_lines = list(old_lines)
    new_lines[49], new_lines[59] = "LINE 50\n", "LINE 60\n"
    old, new = "".join(old_lines), "".join(new_lines)
    assert [h.header for h in compute_hunks(old, new)] == ["@@ -47,7 +47,7 @@",
                                                           "@@ -57,7 +57,7 @@"]
    first_only = list(old_lines)
    first_only[49] = "LINE 50\n"
    second_only = list(old_lines)
    second_only[59] = "LINE 60\n"
    assert apply_hunks(old, new, [0]) == "".join(first_only)
    assert apply_hunks(old, new, [1]) == "".join(second_only)
    assert apply_hunks(old, new, [0, 1]) == new
    assert apply_hunks(old, new, []) == old


def test_every_hunk_kept_of_a_40_line_file_keeps_the_last_line():
    # Issue 9: a 40-line file lost its last line with every hunk kept.
    old = "".join(numbered(40))
    new = old.replace("line 20\n", "line twenty\n")
    assert apply_hunks(old, new, [0]) == new
    assert apply_hunks(old, new, []) == old


def test_applying_twice_gives_the_same_file():
    # The first call must not leave the matcher's shared state trimmed for the next one.
    old = "".join(numbered(30))
    new = old.replace("line 15\n", "fifteen\n")
    assert apply_hunks(old, new, [0]) == apply_hunks(old, new, [0]) == new


def test_an_unknown_hunk_index_is_refused():
    with pytest.raises(ValueError, match="no hunk 2 .*2 hunks"):
        apply_hunks(OLD, NEW.replace("line 38.5\n", ""), [2])
