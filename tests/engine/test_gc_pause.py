"""One counted pause of the garbage collector serves the symbol map (a worker thread) and a
compaction (the event loop), even when they overlap."""

import gc

from swetui.engine.gc_pause import gc_paused


def test_overlapping_pauses_keep_the_collector_off_until_the_last_one_ends():
    assert gc.isenabled()
    building, compacting = gc_paused(freeze=True), gc_paused()
    frozen_before = gc.get_freeze_count()
    try:
        building.__enter__()
        compacting.__enter__()
        compacting.__exit__(None, None, None)  # the compaction ends while the map still builds
        assert not gc.isenabled()
        assert gc.get_freeze_count() == frozen_before
        building.__exit__(None, None, None)
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0  # the map's objects are never walked again
    finally:
        if frozen_before == 0:
            gc.unfreeze()
        gc.enable()


def test_a_compaction_alone_leaves_nothing_frozen_and_the_collector_as_it_was():
    if gc.get_freeze_count():
        gc.unfreeze()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()
