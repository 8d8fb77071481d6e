"""The one interface both compactors share: plan (previewable), apply as one batch, undo."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from swetui.engine.compaction.plan import CompactionPlan
from swetui.engine.context import ContextEngine
from swetui.engine.events import CompactionFinished, CompactionUndone


@runtime_checkable
class Compactor(Protocol):
    """Plans a compaction (previewable), applies it as one batch, undoes it."""

    name: str

    def plan(self, engine: ContextEngine, *, item_ids: Iterable[str] | None = None,
             instructions: str | None = None, target: int | None = None) -> CompactionPlan:
        """`target`: tokens the request should get under (folding more when it must)."""
        ...

    async def plan_async(self, engine: ContextEngine, *, item_ids: Iterable[str] | None = None,
                         instructions: str | None = None,
                         target: int | None = None) -> CompactionPlan: ...

    def apply(self, engine: ContextEngine, plan: CompactionPlan,
              trigger: str = "manual") -> CompactionFinished: ...

    def undo(self, engine: ContextEngine,
             compaction_id: str | None = None) -> CompactionUndone: ...
