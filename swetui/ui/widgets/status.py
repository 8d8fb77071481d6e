"""The live status line under the transcript: what the agent is doing and for how long."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from swetui.text import one_line

Clock = Callable[[], float]


def format_tokens(count: int) -> str:
    """1234 → '1.2k', 999 → '999' (compact, for status and completion lines)."""
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def format_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"


class TurnStatus(Static):
    """`· Thinking… (esc to interrupt · 3s)` while a turn runs; hidden otherwise."""

    DEFAULT_CSS = """
    TurnStatus {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        display: none;
    }
    TurnStatus.-active { display: block; }
    TurnStatus .spinner { color: $primary; }
    """

    TICKING = True
    """Tests switch the one-second timer off so snapshots are stable."""
    clock: Clock = staticmethod(time.monotonic)

    activity: reactive[str] = reactive("Thinking…")

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__("", id=id)
        self._started: float | None = None
        self._timer: Timer | None = None

    @property
    def running(self) -> bool:
        return self._started is not None

    def start(self, activity: str = "Thinking…") -> None:
        """A turn started: show the line and count seconds."""
        self._started = self.clock()
        self.activity = activity
        self.add_class("-active")
        if self.TICKING and self._timer is None:
            self._timer = self.set_interval(1.0, self.tick)
        self.tick()

    def stop(self) -> None:
        self._started = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.remove_class("-active")

    def elapsed(self) -> float:
        return 0.0 if self._started is None else max(0.0, self.clock() - self._started)

    def watch_activity(self) -> None:
        self.tick()

    def tick(self) -> None:
        """Redraw the line with the elapsed seconds (the timer calls this every second)."""
        if self._started is None:
            return
        line = Text()
        line.append("· ", style="bold")
        line.append(one_line(self.activity))
        line.append(f" (esc to interrupt · {int(self.elapsed())}s)", style="dim")
        self.update(line)
