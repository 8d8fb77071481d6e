"""Recounting every item from scratch (no token cache): the naive baseline the benchmarks
compare the engine's incremental budget against, and a consistency check for tests."""

from __future__ import annotations

import json

from swetui.engine.budget import Budget, make_budget
from swetui.engine.context import ContextEngine
from swetui.engine.items import LAYER_ORDER, ItemKind, Layer
from swetui.engine.tokens import MESSAGE_OVERHEAD


def recount_all(engine: ContextEngine) -> Budget:
    """The budget of `engine`'s items, every one counted again."""
    totals = dict.fromkeys(LAYER_ORDER, 0)
    for item in engine:
        if item.sent:
            text = item.sent_text()
            tokens = engine.counter.count_uncached(text) + MESSAGE_OVERHEAD
            if item.kind is ItemKind.TOOL_CALL and item.sent_arguments():
                tokens += engine.counter.count_uncached(
                    json.dumps(item.sent_arguments(), sort_keys=True))
            totals[item.effective_layer] += tokens
    totals[Layer.HISTORY] += engine.draft_tokens
    now = engine.budget()
    return make_budget(totals, engine.settings, measured=now.measured,
                       measured_estimate=now.measured_estimate)
