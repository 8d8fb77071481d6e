"""A session long enough to compact, made of real offline turns (the screen is not needed:
run them before the app starts, and its screen shows them as it shows a resumed session, in
one layout instead of one a turn; that halves the CPU of a compaction test)."""

from __future__ import annotations

from pathlib import Path

from swetui.ui.app import SweTuiApp

BIG = "".join(f"def function_{n}():\n    return {n}\n" for n in range(40))


async def long_session(app: SweTuiApp, root: Path, turns: int = 6) -> None:
    """`turns` offline turns that each read an 80-line file: old ones fold."""
    (root / "big.py").write_text(BIG)
    for turn in range(turns):
        finished = await app.session.send(f"read big.py ({turn})")
        assert finished.error is None, finished.error
