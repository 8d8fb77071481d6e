"""What takes the room when compaction cannot bring a request under its threshold: the
layers compaction does not fold, and the largest items there the user can drop or unpin."""

from __future__ import annotations

from swetui.engine.context import ContextEngine
from swetui.engine.items import Layer

SHOWN_ITEMS = 4
"""Largest items named in the notice."""


def what_takes_the_room(engine: ContextEngine, target: int, retry_at: int) -> str:
    """One notice: the request against the threshold and target, the layers that take the
    room, the largest items the user can drop or unpin, and when compaction tries again."""
    budget = engine.budget()
    rows = sorted((row for row in budget.layers
                   if row.name is not Layer.RESERVE and row.tokens),
                  key=lambda row: -row.tokens)
    layers = ", ".join(f"{row.name.value} {row.tokens:,}" for row in rows[:4])
    movable = sorted((item for item in engine
                      if item.sent and engine.sent_tokens(item.id)
                      and item.effective_layer in (Layer.PINNED, Layer.TASK, Layer.MEMORY)),
                     key=lambda item: -engine.sent_tokens(item.id))[:SHOWN_ITEMS]
    advice = "; ".join(
        f"{'unpin' if item.pinned else 'drop'} {item.id} {item.title!r} "
        f"({engine.sent_tokens(item.id):,})" for item in movable)
    return (f"Compaction cannot bring the request under the threshold: "
            f"{budget.total:,} tokens against {budget.threshold_tokens:,} (target "
            f"{target:,}). The room goes to {layers}."
            + (f" You can {advice} in the inspector." if advice else
               " Most of it is the recent history: a new session or a larger window helps.")
            + f" Automatic compaction waits until the request reaches {retry_at:,} tokens.")
