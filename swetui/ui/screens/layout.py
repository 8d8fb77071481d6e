"""How the workspace screen lays itself out at a terminal size (DESIGN §8), as CSS classes.

Wide: transcript left, gauge / inspector / approvals right. Narrow (under SINGLE_WIDTH
columns): one pane at a time — the transcript, or the side pane that has the focus (F3, F4,
F5 show one; F2 or the prompt bring the transcript back). Short (under SHORT_HEIGHT rows): the
focused approval queue takes the whole right column, so its diff shows. Under the minimum,
a hint replaces everything."""

from __future__ import annotations

MIN_WIDTH, MIN_HEIGHT = 60, 16
SINGLE_WIDTH = 72
"""Below this many columns the transcript and the right column cannot both fit."""
NARROW_WIDTH = 110
SHORT_HEIGHT = 32


def size_classes(width: int, height: int) -> dict[str, bool]:
    """The screen's layout classes at `width`×`height`."""
    return {
        "-too-small": width < MIN_WIDTH or height < MIN_HEIGHT,
        "-narrow": width < NARROW_WIDTH,
        "-single": width < SINGLE_WIDTH,
        "-short": height < SHORT_HEIGHT,
    }


def too_small_hint(width: int, height: int) -> str:
    return (f"Terminal too small ({width}×{height}).\nswetui needs at least "
            f"{MIN_WIDTH}×{MIN_HEIGHT}; enlarge the window.\nctrl+q quits.")
