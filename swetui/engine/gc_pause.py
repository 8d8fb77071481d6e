"""Pausing Python's cyclic garbage collector while the engine creates objects in bulk: the
symbol map (parsing, loading its cache, indexing) and a compaction (thousands of folded items
and records). The collector would otherwise walk the growing structures again and again
(loading a map cache took four times as long; a large compaction's young collections grew
faster than the session), and each full walk stops every thread, the screen's included, for
up to a second at 10,000 files.

One counted pause serves both, even at once (the map builds in a worker thread while a
compaction runs on the event loop): the collector stays off until the last pause ends, and
comes back on only if it was on before the first. Then what exists leaves the young
generations without being scanned:
- frozen for good (`gc.freeze`) when a pause asked to (`freeze=True`, the symbol map: nothing
  it creates forms a cycle, its objects are still freed by reference counting when a newer
  map replaces them; the cost is that a cycle among objects that existed at that moment and
  later become garbage is not collected — the map is built once, at the session's start);
- otherwise moved straight to the oldest generation (`gc.freeze` then `gc.unfreeze`), unless
  something is already frozen, which `unfreeze` would release."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0
_was_enabled = False
_keep_frozen = False


@contextmanager
def gc_paused(*, freeze: bool = False) -> Iterator[None]:
    """The collector is off inside (nested and concurrent uses count); see the module."""
    global _paused, _was_enabled, _keep_frozen
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            _keep_frozen = False
            gc.disable()
        _paused += 1
        _keep_frozen = _keep_frozen or freeze
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0:
                if _keep_frozen:
                    gc.freeze()
                elif gc.get_freeze_count() == 0:
                    gc.freeze()
                    gc.unfreeze()
                if _was_enabled:
                    gc.enable()
