"""`/stats`: what a session has done and what its next request costs."""

from __future__ import annotations

from typing import TypedDict

from swetui.config import Mode
from swetui.engine.compaction import active_compactions
from swetui.engine.context import ContextEngine


class SessionStats(TypedDict):
    """One session's figures, in the order `/stats` shows them."""

    session: str
    model: str
    mode: Mode
    turns: int
    items: int
    tokens: int
    limit: int
    percent: float
    measured: int | None
    """Input tokens the provider reported for the last request, when it did."""
    calibration: float | None
    pending_approvals: int
    compactions: int
    persisted: bool


def session_stats(engine: ContextEngine, *, session_id: str, mode: Mode,
                  pending_approvals: int, persisted: bool) -> SessionStats:
    budget = engine.budget()
    ratio = engine.calibration()
    return {"session": session_id, "model": engine.model, "mode": mode,
            "turns": engine.turn, "items": len(engine),
            "tokens": budget.total, "limit": budget.limit,
            "percent": round(budget.percent, 1), "measured": budget.measured,
            "calibration": round(ratio, 3) if ratio else None,
            "pending_approvals": pending_approvals,
            "compactions": len(active_compactions(engine)), "persisted": persisted}
