"""What model calls cost, in US dollars: the `Cost` of a call or a sum of calls and how it is
shown. Light on purpose (the turn's events carry it); `swetui.agent.pricing` prices calls."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

Basis = Literal["genai-prices", "config", "local", "unknown", "partial", "none"]
"""Where a cost came from; `partial`: a sum in which some calls had no known price;
`none`: nothing was sent yet."""

MILLION = 1_000_000


class Cost(BaseModel):
    """US dollars, or None when the price is unknown; `basis` says where it came from."""

    model_config = ConfigDict(frozen=True)

    usd: float | None
    basis: Basis

    @property
    def known(self) -> bool:
        return self.usd is not None and self.basis != "partial"

    def __add__(self, other: Cost) -> Cost:
        if self.basis == "none":
            return other
        if other.basis == "none":
            return self
        if self.usd is None and other.usd is None:
            return UNKNOWN
        usd = (self.usd or 0.0) + (other.usd or 0.0)
        if self.usd is None or other.usd is None or "partial" in (self.basis, other.basis):
            return Cost(usd=usd, basis="partial")
        if self.basis == other.basis:
            return Cost(usd=usd, basis=self.basis)
        priced = [basis for basis in (self.basis, other.basis) if basis != "local"]
        return Cost(usd=usd, basis=priced[0] if len(priced) == 1 else "genai-prices")


UNKNOWN = Cost(usd=None, basis="unknown")
FREE = Cost(usd=0.0, basis="local")
NOTHING = Cost(usd=0.0, basis="none")
"""The start of a sum."""


def sum_costs(costs: Iterable[Cost]) -> Cost:
    total: Cost | None = None
    for cost in costs:
        total = cost if total is None else total + cost
    return total if total is not None else NOTHING


def format_usd(usd: float) -> str:
    """`$0.0150`, `$1.23`, `$0`: cents are too coarse for one turn of a cheap model."""
    if usd == 0:
        return "$0"
    if abs(usd) >= 1:
        return f"${usd:,.2f}"
    return f"${usd:.4f}"


def format_cost(cost: Cost) -> str:
    """`$0.0150`, `$0 (local)`, `price unknown`, `$0.0150 + calls of unknown price`."""
    if cost.usd is None:
        return "price unknown"
    if cost.basis == "partial":
        return f"{format_usd(cost.usd)} + calls of unknown price"
    return format_usd(cost.usd) + (" (local)" if cost.basis == "local" else "")
