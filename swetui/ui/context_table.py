"""The table `/context` prints: the layers of the next request, a total that is their sum,
then what is not sent (the reserve) and what is left, each figure named for what it is."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from swetui.engine.budget import Budget
from swetui.engine.items import Layer


def context_table(budget: Budget) -> Table:
    """Rows that add up: each layer sent, the request (their sum), the same as the model
    counts it (when calibrated), the reserve kept for the answer, the room left (the
    request as counted + reserve + free = the window); then the last request as the
    provider measured it."""
    table = Table(title="Next request", title_justify="left", box=None, padding=(0, 1))
    for column in ("layer", "tokens", "of window", "budget"):
        table.add_column(column, justify="left" if column == "layer" else "right")

    def share(tokens: int) -> str:
        return f"{tokens / budget.limit:.1%}" if budget.limit else "—"

    for row in budget.layers:
        if row.name is Layer.RESERVE:
            continue
        table.add_row(row.name.value, f"{row.tokens:,}", share(row.tokens),
                      f"{row.budget:,}" if row.budget is not None else "—",
                      style="bold red" if row.over else "")
    table.add_row("request (the sum)", f"{budget.total:,}", share(budget.total), "",
                  style="bold")
    if budget.calibrated_total is not None and budget.calibration is not None:
        table.add_row(f"as the model counts (×{budget.calibration:.2f})",
                      f"{budget.calibrated_total:,}", share(budget.calibrated_total), "")
    table.add_row(Text("reserve (for the answer, not sent)", style="dim"),
                  f"{budget.reserve:,}", share(budget.reserve), "")
    table.add_row(Text("free", style="dim"), f"{budget.free:,}", share(budget.free), "")
    table.add_row("window", f"{budget.limit:,}", "100.0%", "", style="bold")
    if budget.measured is not None:
        table.add_row(Text("last request (measured)", style="dim"), f"{budget.measured:,}",
                      share(budget.measured), "")
    return table
