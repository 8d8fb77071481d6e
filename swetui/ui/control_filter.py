"""The last line of defence against terminal injection in the full-screen app.

Every line the app draws passes through `ControlFilter` (Textual's line-filter hook): a
control character that got into a widget's text anyway (a model answer, a file name, a
tool's output, text pasted into an editor) is removed before the frame is written. They
take no cells, so the layout is unchanged. Widgets that show outside text first make such
characters visible (`swetui.text.visible`); this filter only guarantees that none is sent.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from swetui.text import has_controls, without_controls


class ControlFilter(LineFilter):
    """Removes C0/C1 control and bidirectional-override characters from drawn text."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(has_controls(segment.text) for segment in segments):
            return segments
        return [Segment(without_controls(text), style, control)
                if control is None and has_controls(text) else Segment(text, style, control)
                for text, style, control in segments]


CONTROL_FILTER = ControlFilter()
