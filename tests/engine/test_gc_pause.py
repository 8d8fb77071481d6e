"""One counted pause of the garbage collector serves the symbol map (a worker thread) and a
compaction (the event loop), even when they overlap.

Each check runs in a fresh interpreter: the collector is the process's, and a map build that
an earlier test of the same worker left running in a thread pauses and resumes it too (both
checks failed now and then in the full run, never alone)."""

import subprocess
import sys
import textwrap

from tests.waiting import WAIT


def alone(body: str) -> None:
    """Run `body` (Python, with `gc` and `gc_paused` imported) in a fresh interpreter."""
    program = "import gc\nfrom swetui.engine.gc_pause import gc_paused\n" + textwrap.dedent(body)
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=WAIT)
    assert result.returncode == 0, result.stderr


def test_overlapping_pauses_keep_the_collector_off_until_the_last_one_ends():
    alone("""
        assert gc.isenabled() and gc.get_freeze_count() == 0
        building, compacting = gc_paused(freeze=True), gc_paused()
        building.__enter__()
        compacting.__enter__()
        compacting.__exit__(None, None, None)  # the compaction ends while the map builds
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
        building.__exit__(None, None, None)
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0  # the map's objects are never walked again
        """)


def test_a_compaction_alone_leaves_nothing_frozen_and_the_collector_as_it_was():
    alone("""
        with gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled() and gc.get_freeze_count() == 0
        gc.disable()
        with gc_paused():
            pass
        assert not gc.isenabled()  # off before, off after
        """)
