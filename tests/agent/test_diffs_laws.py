"""Laws of hunks, checked over random texts (hypothesis): applying any subset of a diff's hunks
gives the old text with exactly those hunks replaced, as the user saw them.

Texts are drawn from a small line alphabet so diffs have many hunks and repeated lines, with
'\\n', '\\r\\n' and mixed endings, a missing final newline, and empty files. The expected
result is rebuilt from what the diff view shows (headers and prefixed lines), independently of
how `apply_hunks` computes it.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.diffs import NO_NEWLINE, Hunk, apply_hunks, compute_hunks, split_lines

ALPHABET = ["a", "b", "c", "", "    x = 1", "a\rb", "\\ No newline at end of file", "é"]
HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@st.composite
def one_text(draw: st.DrawFn, lines: list[str]) -> str:
    """`lines` joined with '\\n', '\\r\\n' or a mix, maybe without the final newline."""
    style = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    endings = [draw(st.sampled_from(["\n", "\r\n"])) if style == "mixed" else style
               for _ in lines]
    text = "".join(line + end for line, end in zip(lines, endings, strict=True))
    if lines and draw(st.booleans()):
        text = text[:-len(endings[-1])]  # no final newline (an empty last line vanishes)
    return text


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str]:
    """An old text and a new one: mostly a few edits scattered over the old lines (so the diff
    has several hunks), sometimes unrelated texts, from nothing to a full rewrite."""
    line = st.sampled_from(ALPHABET)
    size = draw(st.integers(0, 80))  # lists() alone would mostly draw a handful of lines
    old = draw(st.lists(line, min_size=size, max_size=size))
    if draw(st.integers(0, 5)) == 0:
        new = draw(st.lists(line, max_size=30))
    else:
        new = list(old)
        for _ in range(draw(st.integers(0, 10))):
            at = draw(st.integers(0, len(new)))
            op = draw(st.sampled_from(["replace", "drop", "insert"]))
            if op == "insert" or at == len(new):
                new[at:at] = draw(st.lists(line, min_size=1, max_size=3))
            elif op == "replace":
                new[at:at + 1] = draw(st.lists(line, min_size=1, max_size=2))
            else:
                del new[at:at + draw(st.integers(1, 3))]
    return draw(one_text(old)), draw(one_text(new))


@dataclass
class Shown:
    """One hunk as the diff view shows it, read back into text: where it starts (0-based)
    in the old and new files, and its old and new lines with their endings restored."""

    old_start: int
    old: list[str]
    new_start: int
    new: list[str]


def shown(hunk: Hunk) -> Shown:
    """Parse a hunk's header and lines the way a reader of the unified diff would."""
    match = HEADER.fullmatch(hunk.header)
    assert match, hunk.header
    a, b, c, d = (int(group) if group is not None else 1 for group in match.groups())
    old: list[str] = []
    new: list[str] = []
    last: list[list[str]] = []
    for line in hunk.lines:
        if line == NO_NEWLINE:  # the line before it has no final newline
            for side in last:
                side[-1] = side[-1].removesuffix("\n")
            continue
        prefix, body = line[0], line[1:] + "\n"
        last = {" ": [old, new], "-": [old], "+": [new]}[prefix]
        for side in last:
            side.append(body)
    assert (len(old), len(new)) == (b, d), f"header {hunk.header} counts the lines shown"
    # An empty range names the line before it.
    return Shown(a if b == 0 else a - 1, old, c if d == 0 else c - 1, new)


def expected(old: str, hunks: list[Hunk], accepted: set[int]) -> str:
    """`old` with the shown old lines of each accepted hunk swapped for its shown new lines."""
    lines = split_lines(old)
    out: list[str] = []
    done = 0
    for hunk in hunks:
        view = shown(hunk)
        assert view.old_start >= done, "hunks are ordered and disjoint"
        assert lines[view.old_start:view.old_start + len(view.old)] == view.old, \
            "a hunk shows the old lines exactly"
        out += lines[done:view.old_start]
        out += view.new if hunk.index in accepted else view.old
        done = view.old_start + len(view.old)
    return "".join(out + lines[done:])


def subsets(data: st.DataObject, count: int) -> list[set[int]]:
    """Every subset of `count` hunks when there are few, else a sample and complements."""
    if count <= 6:
        return [set(s) for size in range(count + 1)
                for s in itertools.combinations(range(count), size)]
    drawn = data.draw(st.lists(st.sets(st.integers(0, count - 1)), min_size=1, max_size=8))
    return drawn + [set(range(count)) - s for s in drawn]


def check_exact(old: str, new: str, accepted: set[int]) -> None:
    """The result is old with exactly the accepted hunks replaced, as shown."""
    hunks = compute_hunks(old, new)
    assert apply_hunks(old, new, accepted) == expected(old, hunks, accepted), sorted(accepted)


def check_local(old: str, new: str, accepted: set[int]) -> None:
    """Old and the result differ only inside accepted hunks, and the rest can follow."""
    kept = [shown(hunk) for hunk in compute_hunks(old, new) if hunk.index in accepted]
    result = apply_hunks(old, new, accepted)
    # Where old and the result differ, by their own diff: each removed line and each
    # insertion point lies inside an accepted hunk's old range.
    for hunk in compute_hunks(old, result):
        at = hunk.old_start - 1
        for line in hunk.lines:
            if line.startswith("+"):
                assert any(k.old_start <= at <= k.old_start + len(k.old) for k in kept)
            elif line.startswith("-"):
                assert any(k.old_start <= at < k.old_start + len(k.old) for k in kept)
            if line[:1] in (" ", "-"):
                at += 1
    # Applying the rest afterwards (recomputed against the result) gives the new text.
    rest = compute_hunks(result, new)
    assert apply_hunks(result, new, range(len(rest))) == new


def check_described(old: str, new: str) -> None:
    """Each hunk's numbers agree with the lines it shows, and all of them make `new`."""
    hunks = compute_hunks(old, new)
    shift = 0  # how far the new file's lines have moved, from the hunks before
    for index, hunk in enumerate(hunks):
        view = shown(hunk)
        assert hunk.index == index
        assert (hunk.old_start - 1, hunk.old_count) == (view.old_start, len(view.old))
        assert (hunk.new_start - 1, hunk.new_count) == (view.new_start, len(view.new))
        assert hunk.new_start - hunk.old_start == shift
        assert hunk.added == sum(line.startswith("+") for line in hunk.lines)
        assert hunk.removed == sum(line.startswith("-") for line in hunk.lines)
        shift += hunk.new_count - hunk.old_count
    assert expected(old, hunks, set(range(len(hunks)))) == new
    assert (hunks == []) == (old == new)


@given(pair=edits())
def test_all_hunks_give_the_new_text_and_none_the_old(pair: tuple[str, str]):
    old, new = pair
    assert apply_hunks(old, new, range(len(compute_hunks(old, new)))) == new
    assert apply_hunks(old, new, []) == old


@given(pair=edits(), data=st.data())
def test_any_subset_replaces_exactly_the_accepted_hunks(pair: tuple[str, str],
                                                        data: st.DataObject):
    old, new = pair
    for accepted in subsets(data, len(compute_hunks(old, new))):
        check_exact(old, new, accepted)


@given(pair=edits(), data=st.data())
def test_a_partial_result_differs_from_old_only_inside_accepted_hunks(
        pair: tuple[str, str], data: st.DataObject):
    old, new = pair
    for accepted in subsets(data, len(compute_hunks(old, new))):
        check_local(old, new, accepted)


@given(pair=edits())
def test_hunks_describe_the_diff_they_show(pair: tuple[str, str]):
    check_described(*pair)


@pytest.mark.parametrize(("old", "new"), [
    ("", ""), ("", "a\n"), ("a\r\nb", ""), ("a", "a\n"), ("a\n", "a"), ("a\r\n", "a\n"),
    ("\n\n\n", "\n"), ("a\rb\n", "a\r\nb\n"), ("x\n" * 9, "x\n" * 9 + "y"),
])
def test_corner_cases_obey_every_law(old: str, new: str):
    hunks = compute_hunks(old, new)
    assert apply_hunks(old, new, range(len(hunks))) == new and apply_hunks(old, new, []) == old
    check_described(old, new)
    for size in range(len(hunks) + 1):
        for accepted in itertools.combinations(range(len(hunks)), size):
            check_exact(old, new, set(accepted))
            check_local(old, new, set(accepted))
