"""`/context`'s figures add up: the layers sent sum to the request, the reserve is shown apart
(room kept for the answer, not sent), and the calibrated figure is named as such."""

from __future__ import annotations

import re

from swetui.engine.budget import BudgetSettings
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer
from swetui.ui.commands import plain_text
from swetui.ui.context_table import context_table


def _rows(text: str) -> dict[str, int]:
    rows = {}
    for line in text.splitlines():
        match = re.match(r"\s*(.+?)\s{2,}([\d,]+)\s", line + " ")
        if match:
            rows[match.group(1).strip()] = int(match.group(2).replace(",", ""))
    return rows


def test_the_layers_sum_to_the_request_and_the_reserve_stands_apart() -> None:
    engine = ContextEngine(BudgetSettings(limit=8_000, reserve=1_000), model="offline")
    engine.add(ContextItem(id="s", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                           title="System prompt", content="You are swetui. " * 30))
    engine.add(ContextItem(id="u", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                           title="hello", content="hello there " * 20, turn_created=1))
    budget = engine.budget()
    rows = _rows(plain_text(context_table(budget)))
    layers = sum(rows[layer.value] for layer in Layer if layer is not Layer.RESERVE)
    assert rows["request (the sum)"] == layers == budget.total
    assert rows["reserve (for the answer, not sent)"] == 1_000
    assert rows["request (the sum)"] + rows["reserve (for the answer, not sent)"] \
        + rows["free"] == rows["window"] == 8_000
    calibrated = budget.model_copy(update={"calibration": 0.95})
    text = plain_text(context_table(calibrated))
    assert f"as the model counts (×0.95)  {round(budget.total * 0.95):,}" in \
        re.sub(r" {2,}", "  ", text)
