"""Unified diffs split into hunks, and applying only the hunks a user accepted.

The toolbox computes a `FileDiff` for every pending edit; the UI's diff view renders its
hunks and the user accepts or rejects them one by one. `apply_hunks` then rebuilds the file
from those hunks' own line ranges, so a hunk index always means the change the user saw.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

CONTEXT_LINES = 3
NO_NEWLINE = "\\ No newline at end of file"


class Hunk(BaseModel):
    """One hunk of a unified diff: its header (`@@ -a,b +c,d @@`) and its prefixed lines."""

    index: int
    """0-based position of the hunk in the diff; `Decision.hunks` refers to it."""
    header: str
    lines: list[str]
    """Diff lines without line endings, each prefixed by ' ', '+', '-' (or the '\\' marker)."""
    added: int
    removed: int
    old_start: int
    old_count: int
    new_start: int
    new_count: int

    def text(self) -> str:
        """The hunk as unified-diff text."""
        return "\n".join([self.header, *self.lines])


def split_lines(text: str) -> list[str]:
    """Split on '\\n' only, keeping line endings (`str.splitlines` also splits on form
    feeds and Unicode separators, which would corrupt files that contain them)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _matcher(old_lines: list[str], new_lines: list[str]) -> difflib.SequenceMatcher[str]:
    # autojunk off: its heuristic treats frequent lines (blank lines, braces) as junk and
    # yields odd hunks on longer files; off is also fully deterministic.
    return difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)


def _range(start: int, count: int) -> str:
    # Unified-diff convention: an empty range names the line before it.
    if count == 0:
        return f"{start},0"
    return f"{start + 1}" if count == 1 else f"{start + 1},{count}"


def _diff_line(prefix: str, line: str) -> list[str]:
    if line.endswith("\n"):
        return [prefix + line[:-1]]
    return [prefix + line, NO_NEWLINE]


def compute_hunks(old: str, new: str, context: int = CONTEXT_LINES) -> list[Hunk]:
    """The hunks turning `old` into `new`."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    hunks: list[Hunk] = []
    # get_grouped_opcodes trims the matcher's cached opcode list in place: a matcher that
    # has grouped must not be asked for its opcodes again (issue 9 truncated files that way).
    for group in _matcher(old_lines, new_lines).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        added = removed = 0
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in old_lines[a1:a2]:
                    lines += _diff_line(" ", line)
                continue
            for line in old_lines[a1:a2]:
                lines += _diff_line("-", line)
                removed += 1
            for line in new_lines[b1:b2]:
                lines += _diff_line("+", line)
                added += 1
        header = f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@"
        hunks.append(Hunk(index=len(hunks), header=header, lines=lines, added=added,
                          removed=removed, old_start=i1 + 1, old_count=i2 - i1,
                          new_start=j1 + 1, new_count=j2 - j1))
    return hunks


def unified_diff(old: str | None, new: str, path: str,
                 hunks: list[Hunk] | None = None) -> str:
    """A git-style unified diff with `a/` `b/` names (`/dev/null` for a new file)."""
    if hunks is None:
        hunks = compute_hunks(old or "", new)
    if not hunks:
        return ""
    source = "/dev/null" if old is None else f"a/{path}"
    body = "\n".join(hunk.text() for hunk in hunks)
    return f"--- {source}\n+++ b/{path}\n{body}\n"


def _ranges(hunks: Iterable[Hunk]) -> list[tuple[int, int, int, int]]:
    return [(h.old_start, h.old_count, h.new_start, h.new_count) for h in hunks]


def apply_hunks(old: str, new: str, accepted: Iterable[int], *,
                shown: Sequence[Hunk] | None = None) -> str:
    """`old` with exactly the accepted hunks (by index) of `compute_hunks(old, new)` applied:
    each accepted hunk's old lines replaced by its new lines, every other line kept as is.

    `shown` are the hunks the user chose from (say, restored from an older session log);
    a `ValueError` if they are not the hunks of this diff, since an index would then name
    another change."""
    hunks = compute_hunks(old, new)
    if shown is not None and _ranges(shown) != _ranges(hunks):
        raise ValueError("the hunks shown are not the hunks of this change")
    keep = set(accepted)
    unknown = sorted(keep - {hunk.index for hunk in hunks})
    if unknown:
        raise ValueError(f"no hunk {unknown[0]} in this edit (it has {len(hunks)} hunks)")
    old_lines, new_lines = split_lines(old), split_lines(new)
    out: list[str] = []
    done = 0  # old lines before this index are already in `out`
    for hunk in hunks:
        # Hunks are ordered and disjoint; their ranges include the (identical) context.
        start = hunk.old_start - 1
        out += old_lines[done:start]
        if hunk.index in keep:
            out += new_lines[hunk.new_start - 1:hunk.new_start - 1 + hunk.new_count]
        else:
            out += old_lines[start:start + hunk.old_count]
        done = start + hunk.old_count
    out += old_lines[done:]
    return "".join(out)


def diff_stats(hunks: Iterable[Hunk]) -> tuple[int, int]:
    """(lines added, lines removed) over `hunks`."""
    added = removed = 0
    for hunk in hunks:
        added += hunk.added
        removed += hunk.removed
    return added, removed
