"""The model's plan (the `todo` tool): one memory item that compaction and chunk boundaries
never fold or drop, recorded in the session log, and the source of a handoff's tasks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from swetui.agent.tools.base import TodoEntry
from swetui.agent.turn_events import PlanChanged
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin
from swetui.engine.store import RecordEvent

PLAN_ID = "plan"
MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}


class Plan:
    """The task list the model keeps with `todo`."""

    def __init__(self, engine: ContextEngine, record: RecordEvent) -> None:
        self.engine = engine
        self.record = record
        self.entries: list[TodoEntry] = []

    def restore(self, replayed: Sequence[dict[str, Any]]) -> None:
        """The plan of a resumed session (its last `plan` record)."""
        for event in reversed(replayed):
            if event.get("type") == "plan":
                items = event.get("items") or []
                self.entries = [TodoEntry.model_validate(item) for item in items
                                if isinstance(item, dict)]
                return

    def update(self, entries: list[TodoEntry]) -> str:
        """Replace the plan (the `todo` tool); returns what the model is told."""
        self.entries = list(entries)
        self.record("plan", {"turn": self.engine.turn,
                             "items": [entry.model_dump() for entry in self.entries]})
        text = self.render()
        item = ContextItem(id=PLAN_ID, kind=ItemKind.PLAN, layer=Layer.MEMORY,
                           title=self.title(), content=text, origin=Origin.AGENT,
                           turn_created=self.engine.turn, turn_last_used=self.engine.turn)
        if PLAN_ID in self.engine:
            self.engine.update(PLAN_ID, content=text, title=self.title(),
                               state=ItemState.INCLUDED, turn_last_used=self.engine.turn,
                               reason="the agent updated its plan")
        else:
            self.engine.add(item, reason="the agent made a plan")
        self.engine.bus.publish(PlanChanged(
            turn=self.engine.turn,
            tasks=tuple((entry.content, entry.status) for entry in self.entries)))
        return f"Plan saved ({self.title().split(': ', 1)[-1]}); it stays in your context.\n{text}"

    def title(self) -> str:
        done = len(self.completed())
        return f"Plan: {done} of {len(self.entries)} done"

    def render(self) -> str:
        if not self.entries:
            return "Plan (todo): no tasks."
        lines = [f"Plan (todo), {len(self.completed())} of {len(self.entries)} done:"]
        lines += [f"- {MARKS[entry.status]} {entry.content}" for entry in self.entries]
        return "\n".join(lines)

    def completed(self) -> list[str]:
        return [entry.content for entry in self.entries if entry.status == "completed"]

    def pending(self) -> list[str]:
        """Tasks not done yet, the one in progress first."""
        ordered = sorted((entry for entry in self.entries if entry.status != "completed"),
                         key=lambda entry: entry.status != "in_progress")
        return [entry.content for entry in ordered]
