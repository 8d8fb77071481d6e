"""Pausing Python's cyclic garbage collector while the symbol map creates its objects in
bulk (parsing, loading the cache, indexing): the collector would otherwise walk the growing
map again and again (loading a cache took four times as long), and each walk stops every
thread, the screen's included, for up to a second at 10,000 files.

When the last pause ends, what exists is frozen (`gc.freeze`: moved where the collector never
walks again) before the collector resumes, so the map is not walked even once more. Nothing
the map creates forms a cycle: its objects are still freed by reference counting when a
newer map replaces them. The cost is that a cycle among objects that existed at that moment
and later become garbage is not collected (the map is built once, at the session's start)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector is off inside (nested and concurrent uses count); it is back on, if it
    was on, when the last one leaves."""
    global _paused, _was_enabled
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0:
                gc.freeze()
                if _was_enabled:
                    gc.enable()
