"""Session notes (`.swetui/memory/session_notes.md`): goals, current task, files modified,
open issues — loaded at start as memory and updated after every turn."""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import BaseModel

from swetui.agent.turn_events import ToolCallFinished, TurnFinished
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.paths import write_private
from swetui.secrets import redact

log = logging.getLogger(__name__)

WRITING_TOOLS = frozenset({"edit_file", "write_file"})
MAX_LIST = 12


class SessionNotes:
    """Keeps the notes file and its memory item in step with the session."""

    def __init__(self, path: Path, engine: ContextEngine) -> None:
        self.path = path
        self.engine = engine
        self.goal: str | None = None
        self.modified: list[str] = []
        self.issues: list[str] = []
        engine.bus.subscribe(self._on_tool, ToolCallFinished)

    def _on_tool(self, event: BaseModel) -> None:
        if not isinstance(event, ToolCallFinished):
            return
        if event.name in WRITING_TOOLS and not event.is_error and event.path:
            if event.path in self.modified:
                self.modified.remove(event.path)
            self.modified.append(event.path)
        elif event.is_error:
            self.issues.append(f"{event.name}: {event.summary}")

    def render(self, task: str) -> str:
        def bullets(values: list[str]) -> str:
            return "\n".join(f"- {value}" for value in values[-MAX_LIST:]) or "- (none yet)"

        return (f"# Session notes\n\n## Goals\n- {self.goal or task}\n\n"
                f"## Current task\n- {task}\n\n## Files modified\n{bullets(self.modified)}\n\n"
                f"## Open issues\n{bullets(self.issues)}\n")

    def after_turn(self, finished: TurnFinished, text: str) -> None:
        """Write the notes after a turn; an unwritable workspace keeps them in memory."""
        task = " ".join(text.split())[:200]
        if self.goal is None:
            self.goal = task
        if finished.error:
            self.issues.append(finished.error)
        content = redact(self.render(task))
        try:
            write_private(self.path, content.encode("utf-8"))
        except OSError as exc:
            log.info("session notes not written: %s", exc)
        if "notes" in self.engine:
            if self.engine.get("notes").content != content:
                self.engine.set_content("notes", content, reason="session notes updated")
        else:
            self.engine.add(ContextItem(id="notes", kind=ItemKind.SESSION_NOTES,
                                        layer=Layer.MEMORY, title="Session notes",
                                        content=content, origin=Origin.AUTO,
                                        source=Source(path=".swetui/memory/session_notes.md")),
                            reason="session notes written")
