"""The budget gauge: one bar for the whole window, a row per layer."""

from __future__ import annotations

from textual.widget import Widget

from swetui.engine.context import ContextEngine


class BudgetGauge(Widget):
    """Shows how full the context window is, live."""

    def __init__(self, engine: ContextEngine, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.engine = engine
