"""Session notes (`.swetui/memory/session_notes.md`): goals, decisions, the current task, files
modified and open issues. Loaded at start as memory (any session's, resumed or new), updated
after each significant action (a file written, a decision, the end of a turn) by merging this
session's changes into what the file holds then: never written over."""

from __future__ import annotations

import fcntl
import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from swetui.agent.events import ApprovalDecided
from swetui.agent.notes_file import (
    DECISIONS,
    GOALS,
    ISSUES,
    MODIFIED,
    TASK,
    Change,
    NotesDocument,
    apply,
    entry,
    parse,
    render,
)
from swetui.agent.turn_events import ToolCallFinished, TurnFinished
from swetui.engine.context import ContextEngine
from swetui.engine.events import EngineNotice
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.sources import read_text_file
from swetui.files import read_error
from swetui.paths import FILE_MODE, private_dir, write_private
from swetui.secrets import redact

log = logging.getLogger(__name__)

WRITING_TOOLS = frozenset({"edit_file", "write_file"})
NOTES_MAX_BYTES = 1_000_000
"""A notes file larger than this is not rewritten (it would be cut)."""
USER_DECISION = re.compile(
    r"\b(never|always|don't|do not|avoid|prefer|from now on|let's|we (?:decided|agreed|will)|"
    r"instead of)\b", re.IGNORECASE)
"""A sentence of the user's that sets a rule for the work, not just a task."""
ANSWER_DECISION = re.compile(r"^\s*(?:[-*]\s*)?\**Decision\**\s*:\**\s*(.+)$",
                             re.IGNORECASE | re.MULTILINE)


def user_decisions(text: str) -> list[str]:
    """The sentences of a request that state a standing decision ("never touch the
    migrations", "use httpx instead of requests")."""
    sentences = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [entry(sentence) for sentence in sentences
            if sentence.strip() and USER_DECISION.search(sentence)]


def answer_decisions(answer: str) -> list[str]:
    """The `Decision: …` lines of the model's answer."""
    return [entry(found) for found in ANSWER_DECISION.findall(answer) if found.strip()]


class SessionNotes:
    """Keeps the notes file and its memory item in step with the session."""

    def __init__(self, path: Path, engine: ContextEngine) -> None:
        self.path = path
        self.engine = engine
        self.pending: list[Change] = []
        """Changes not yet in the file (it could not be written)."""
        self.refused: str | None = None
        """Why the file is left alone (said once), or None."""
        engine.bus.subscribe(self._on_tool, ToolCallFinished)
        engine.bus.subscribe(self._on_decision, ApprovalDecided)

    # -- what changes the notes ------------------------------------------------------------

    def _on_tool(self, event: BaseModel) -> None:
        if not isinstance(event, ToolCallFinished):
            return
        where = f"`{event.path}`: " if event.path else ""
        if event.is_error:
            self.pending.append(Change("add", ISSUES, entry(
                f"{where}{event.name}: {event.summary}")))
            return
        if event.path:  # it worked now: what went wrong with this file is past
            self.pending.append(Change("remove_prefix", ISSUES, where))
        if event.name in WRITING_TOOLS and event.path:
            self.pending.append(Change("move", MODIFIED, entry(event.path)))
            self.save()

    def _on_decision(self, event: BaseModel) -> None:
        if not isinstance(event, ApprovalDecided) or event.by != "user":
            return
        decision, action = event.decision, event.action
        what = action.summary if action is not None else "an action"
        if not decision.approved and decision.reason:
            self.pending.append(Change("add", DECISIONS, entry(
                f"You denied {what}: {decision.reason}")))
        elif decision.remember != "once" and action is not None:
            verb = "allowed" if decision.approved else "denied"
            pattern = decision.rule_pattern or action.rule_hint
            self.pending.append(Change("add", DECISIONS, entry(
                f"You {verb} {action.kind} `{pattern}` for the {decision.remember}")))
        else:
            return
        self.save()

    def after_turn(self, finished: TurnFinished, text: str) -> None:
        """After a turn: the goal (a session's first request), the current task, decisions
        stated by you or the model, the turn's error; then write."""
        task = entry(text)
        if finished.turn == 1:  # a new session's first request; a resumed one has its goal
            self.pending.append(Change("add", GOALS, task))
        self.pending.append(Change("set", TASK, task))
        for found in user_decisions(text):
            self.pending.append(Change("add", DECISIONS, f"You: {found}"))
        for found in answer_decisions(finished.answer):
            self.pending.append(Change("add", DECISIONS, found))
        if finished.error:
            self.pending.append(Change("add", ISSUES, entry(finished.error)))
        self.save()

    # -- the file --------------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time (two sessions of one workspace merge, never race)."""
        private_dir(self.path.parent)
        fd = os.open(self.path.with_name(f".{self.path.name}.lock"),
                     os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _current(self) -> NotesDocument | None:
        """What the file holds now; None (and said once) when it must be left alone."""
        if not os.path.lexists(self.path):
            return NotesDocument.new()
        shown = ".swetui/memory/session_notes.md"
        try:
            loaded = read_text_file(self.path, NOTES_MAX_BYTES, name=shown,
                                    follow_symlinks=False)
        except OSError as exc:
            problem = read_error(shown, exc)
        else:
            if loaded is not None and not loaded.notes:
                return parse(loaded.text)
            problem = f"{shown}: " + ("binary" if loaded is None else "; ".join(loaded.notes))
        if self.refused is None:
            self.refused = problem
            self.engine.bus.publish(EngineNotice(
                message=f"session notes not updated ({problem}): the file is left as it is"))
        return None

    def save(self) -> str | None:
        """Merge the pending changes into the file and the memory item; the text written,
        or None when the file is left alone (the changes wait)."""
        if not self.pending:
            return None
        try:
            with self._locked():
                document = self._current()
                if document is None:
                    return None
                content = redact(render(apply(document, self.pending)))
                write_private(self.path, content.encode("utf-8"))
        except OSError as exc:
            log.info("session notes not written: %s", exc)
            return None
        self.pending.clear()
        self._show(content)
        return content

    def _show(self, content: str) -> None:
        if "notes" in self.engine:
            if self.engine.get("notes").content != content:
                self.engine.set_content("notes", content, reason="session notes updated")
        else:
            self.engine.add(ContextItem(id="notes", kind=ItemKind.SESSION_NOTES,
                                        layer=Layer.MEMORY, title="Session notes",
                                        content=content, origin=Origin.AUTO,
                                        source=Source(path=".swetui/memory/session_notes.md")),
                            reason="session notes written")
