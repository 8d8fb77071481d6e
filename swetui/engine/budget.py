"""The token budget: how full the window is, per layer, and when to compact."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from swetui.engine.items import LAYER_ORDER, Layer


class BudgetSettings(BaseModel):
    """The numbers a budget is measured against (from `Settings`)."""

    model_config = ConfigDict(frozen=True)

    limit: int = 256_000
    threshold: float = Field(default=0.80, ge=0.10, le=0.95)
    reserve: int = 16_000
    memory: int = 3_000
    summary: int = 300
    task_share: float = 0.20

    def layer_budget(self, layer: Layer) -> int | None:
        """The layer's budget in tokens; None where the design says 'measured' or 'user's'."""
        match layer:
            case Layer.MEMORY:
                return self.memory
            case Layer.SUMMARY:
                return self.summary
            case Layer.TASK:
                return int(self.limit * self.task_share)
            case Layer.RESERVE:
                return self.reserve
            case Layer.HISTORY:
                task = int(self.limit * self.task_share)
                fixed = self.memory + self.summary + self.reserve + task
                return max(0, self.limit - fixed)
        return None


DEFAULT_WINDOW = 256_000
"""The window assumed when neither the user nor the server says."""
ROOM_FOR_A_MESSAGE = 256
"""Tokens a window must have beyond the system layer and the reserve to be usable."""


def scaled_budget(limit: int, *, threshold: float = 0.80, task_share: float = 0.20,
                  reserve: int | None = None, memory: int | None = None,
                  summary: int | None = None) -> BudgetSettings:
    """Budgets for a window of `limit` tokens: what is given is taken as given; the reserve
    and the memory and summary budgets left unset scale with the window (the defaults of
    a large window, 16,000 / 3,000 / 300, shrink in proportion below 96k / 30k / 12k), so
    a 4k window still leaves most of itself to the history."""
    return BudgetSettings(
        limit=limit, threshold=threshold, task_share=task_share,
        reserve=reserve if reserve is not None else min(16_000, limit // 6),
        memory=memory if memory is not None else min(3_000, limit // 10),
        summary=summary if summary is not None else min(300, limit // 40))


def window_problem(limit: int, system_tokens: int, reserve: int) -> str | None:
    """Why a window of `limit` tokens cannot work, naming the numbers; None when it can."""
    needed = system_tokens + reserve + ROOM_FOR_A_MESSAGE
    if limit >= needed:
        return None
    return (f"the context window of {limit:,} tokens is too small: swetui's system prompt "
            f"and tools take {system_tokens:,} tokens, the answer needs {reserve:,} and a "
            f"message at least {ROOM_FOR_A_MESSAGE:,}; use a window of at least {needed:,} "
            "tokens (context_limit, --context-limit, or the server's context size)")


class LayerUsage(BaseModel):
    """One row of the gauge."""

    model_config = ConfigDict(frozen=True)

    name: Layer
    tokens: int
    share: float
    """Share of the whole window (0..1)."""
    budget: int | None
    over: bool


class Budget(BaseModel):
    """A snapshot of the window: totals, per-layer usage, threshold and free room."""

    model_config = ConfigDict(frozen=True)

    limit: int
    threshold: float
    threshold_tokens: int
    reserve: int
    total: int
    """Tokens the next request costs (reserve not included)."""
    layers: tuple[LayerUsage, ...]
    measured: int | None = None
    """Input tokens the provider reported for the last request, when known."""
    measured_estimate: int | None = None
    """swetui's own count of that same request (measured / this is the calibration ratio
    when it was learned from usage)."""
    calibration: float | None = None
    """The model's tokens / swetui's estimate for this model, when known."""
    calibration_source: str | None = None
    """How the calibration was learned: `usage` (a provider's reported usage) or the
    server's tokenize endpoint (`/tokenize`, `/extras/tokenize`)."""

    @property
    def counted(self) -> int:
        """The tokens the model will count: the calibrated figure when there is one, else
        the estimate. The threshold, the percentage and the free room use it."""
        return self.calibrated_total if self.calibrated_total is not None else self.total

    @property
    def free(self) -> int:
        return max(0, self.limit - self.counted - self.reserve)

    @property
    def percent(self) -> float:
        return 100.0 * self.counted / self.limit if self.limit else 0.0

    @property
    def needs_compaction(self) -> bool:
        return self.counted >= self.threshold_tokens

    @property
    def calibrated_total(self) -> int | None:
        """The estimate corrected by the model's calibration ratio."""
        return round(self.total * self.calibration) if self.calibration else None

    def layer(self, name: Layer) -> LayerUsage:
        return next(row for row in self.layers if row.name is name)


def make_budget(layer_tokens: dict[Layer, int], settings: BudgetSettings, *,
                measured: int | None = None, measured_estimate: int | None = None,
                calibration: float | None = None,
                calibration_source: str | None = None) -> Budget:
    """Build the snapshot from per-layer totals (O(layers), no counting)."""
    limit = settings.limit
    rows = []
    total = 0
    for layer in LAYER_ORDER:
        tokens = settings.reserve if layer is Layer.RESERVE else layer_tokens.get(layer, 0)
        if layer is not Layer.RESERVE:
            total += tokens
        budget = settings.layer_budget(layer)
        rows.append(LayerUsage(name=layer, tokens=tokens, share=tokens / limit if limit else 0.0,
                               budget=budget, over=budget is not None and tokens > budget
                               and layer is not Layer.RESERVE))
    return Budget(limit=limit, threshold=settings.threshold,
                  threshold_tokens=int(limit * settings.threshold), reserve=settings.reserve,
                  total=total, layers=tuple(rows), measured=measured,
                  measured_estimate=measured_estimate if measured is not None else None,
                  calibration=calibration,
                  calibration_source=calibration_source if calibration else None)
