"""The learned ranking re-ranks more definitions than it chooses among: a definition that says
the request in other words than the code around it does (its docstring, not the identifiers
and messages fourteen others repeat) is found by its meaning, though words alone rank it
below ten others."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.semantic import MODEL
from tests.engine.helpers import mapped_workspace

BACKOFF = '''\
def next_delay(attempt):
    """Seconds to sleep before an upload is retried: doubles with each attempt, capped
    at a minute, so a flaky server is not hammered."""
    return min(60, 2 ** attempt)
'''
PANEL = '''\
def draw_{what}_panel(panel, counts):
    """Draw the dashboard's {what} panel: one bar per day."""
''' + "".join(f"    panel.bar({day}, counts[{day}])\n" for day in range(12)) + '''\
    panel.note("{what}: failed uploads are retried")
'''
"""A dashboard panel: says the request's words (in a message, past the head the model
reads), is about something else."""
PANELS = ("started", "finished", "cancelled", "paused", "resumed", "queued", "skipped",
          "verified", "renamed", "deleted", "moved", "archived", "shared", "expired")
REQUEST = "How long do we wait before retrying a failed upload?"


def test_a_definition_ranked_low_by_words_is_found_by_its_meaning(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {
        "sync/backoff.py": BACKOFF,
        **{f"sync/dashboard/{what}.py": PANEL.format(what=what) for what in PANELS},
    })
    found = retrieve(tmp_path, REQUEST, ContextEngine(), turn=1, symbols=index,
                     semantic=MODEL)
    assert found.items, found.summary
    first = found.items[0]
    # its code, or the first of the places to read (a shortlist's heading, then entries)
    entry = first.content.split("\n")[1]
    assert entry.startswith("sync/backoff.py:1") and "next_delay" in entry \
        or "def next_delay(attempt):" in first.content, first.content
