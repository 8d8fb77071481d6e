"""`/stats`: what a session has done and what its next request costs."""

from __future__ import annotations

from typing import TypedDict

from swetui.config import Mode
from swetui.engine.compaction import active_compactions
from swetui.engine.context import ContextEngine
from swetui.providers.usage import Usage


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
    input_tokens: int
    """Prompt tokens sent over the session, cache reads and writes included."""
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    reasoning_tokens: int
    usage_measured: bool
    """False when some calls' figures are swetui's estimates (the provider reported none)."""
    pending_approvals: int
    compactions: int
    persisted: bool


def session_stats(engine: ContextEngine, *, session_id: str, mode: Mode, usage: Usage,
                  pending_approvals: int, persisted: bool) -> SessionStats:
    """`usage`: the sum of the session's model calls."""
    budget = engine.budget()
    ratio = engine.calibration()
    return {"session": session_id, "model": engine.model, "mode": mode,
            "turns": engine.turn, "items": len(engine),
            "tokens": budget.total, "limit": budget.limit,
            "percent": round(budget.percent, 1), "measured": budget.measured,
            "calibration": round(ratio, 3) if ratio else None,
            "input_tokens": usage.input_tokens, "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
            "output_tokens": usage.output_tokens, "reasoning_tokens": usage.reasoning_tokens,
            "usage_measured": usage.measured,
            "pending_approvals": pending_approvals,
            "compactions": len(active_compactions(engine)), "persisted": persisted}
