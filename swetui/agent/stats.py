"""`/stats`: what a session has done and what its next request costs."""

from __future__ import annotations

from typing import TypedDict

from swetui.agent.cost import Cost, format_cost
from swetui.agent.limits import SessionLimits
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
    next_request: int
    """The next request as the model counts it (the gauge's headline: swetui's count ×
    the calibration)."""
    estimate: int
    """swetui's own count of the next request (the sum of its layers)."""
    limit: int
    reserve: int
    free: int
    percent: float
    measured: int | None
    """Input tokens the provider reported for the last request, when it did."""
    calibration: float | None
    input_tokens: int
    """Prompt tokens sent over the session (the done lines' ↑ summed), cache reads and
    writes included."""
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    reasoning_tokens: int
    usage_measured: bool
    """False when some calls' figures are swetui's estimates (the provider reported none)."""
    cost: str
    """What the session's model calls cost (`$0.0150`, `$0 (local)`, `price unknown`)."""
    pending_approvals: int
    compactions: int
    chunk: int
    chunk_turns: str
    """Your turns in this chunk, against the warning, soft and hard limits."""
    files_read: str
    files_modified: str
    """Files read and modified in this chunk, against seed 003's limits."""
    persisted: bool


def _against(value: int, *limits: tuple[str, int]) -> str:
    shown = [f"{name} {limit}" for name, limit in limits if limit]
    return f"{value} ({', '.join(shown)})" if shown else str(value)


def session_stats(engine: ContextEngine, limits: SessionLimits, *, session_id: str,
                  mode: Mode, usage: Usage, cost: Cost, pending_approvals: int,
                  persisted: bool) -> SessionStats:
    """`usage` and `cost`: the sums over the session's model calls."""
    budget = engine.budget()
    settings = limits.settings
    ratio = engine.calibration()
    return {"session": session_id, "model": engine.model, "mode": mode,
            "turns": engine.turn, "items": len(engine),
            "next_request": budget.counted, "estimate": budget.total, "limit": budget.limit,
            "reserve": budget.reserve, "free": budget.free,
            "percent": round(budget.percent, 1), "measured": budget.measured,
            "calibration": round(ratio, 2) if ratio else None,
            "input_tokens": usage.input_tokens, "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
            "output_tokens": usage.output_tokens, "reasoning_tokens": usage.reasoning_tokens,
            "usage_measured": usage.measured, "cost": format_cost(cost),
            "pending_approvals": pending_approvals,
            "compactions": len(active_compactions(engine)), "chunk": limits.chunk,
            "chunk_turns": _against(limits.turns, ("warn", settings.warn_turns),
                                    ("soft", settings.soft_chunk_turns),
                                    ("hard", settings.hard_chunk_turns)),
            "files_read": _against(len(limits.read), ("limit", settings.files_read_limit)),
            "files_modified": _against(len(limits.modified),
                                       ("limit", settings.files_modified_limit)),
            "persisted": persisted}
