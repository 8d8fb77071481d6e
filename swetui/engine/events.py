"""Typed events the engine publishes on its bus; the UI turns them into messages."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from swetui.engine.budget import Budget


class ItemsChanged(BaseModel):
    """Items were added, changed or restored (`reason` says how, in the user's words)."""

    model_config = ConfigDict(frozen=True)

    ids: tuple[str, ...]
    reason: str


class BudgetChanged(BaseModel):
    """The window's budget changed."""

    model_config = ConfigDict(frozen=True)

    budget: Budget


class EngineNotice(BaseModel):
    """Something the user should know that is not an error of theirs (cannot persist, a
    memory file was cut, a session line was torn)."""

    model_config = ConfigDict(frozen=True)

    message: str
    level: str = "warning"


class CompactionStarted(BaseModel):
    model_config = ConfigDict(frozen=True)

    compaction_id: str
    trigger: str
    """`auto`, `manual` or `selection`."""
    items: int
    tokens_before: int


class CompactionFinished(BaseModel):
    model_config = ConfigDict(frozen=True)

    compaction_id: str
    trigger: str
    folded: tuple[str, ...]
    created: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    duration_ms: float

    @property
    def reduction(self) -> float:
        if not self.tokens_before:
            return 0.0
        return 100.0 * (self.tokens_before - self.tokens_after) / self.tokens_before


class CompactionUndone(BaseModel):
    model_config = ConfigDict(frozen=True)

    compaction_id: str
    restored: tuple[str, ...]


EngineEvent = (ItemsChanged | BudgetChanged | EngineNotice | CompactionStarted
               | CompactionFinished | CompactionUndone)
"""Every event the context engine publishes."""
