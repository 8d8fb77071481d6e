"""The session notes file (`.swetui/memory/session_notes.md`) as sections of lines, and the
changes a session makes to it.

The file belongs to the person as much as to swetui: a session never writes its own picture
of the notes over the file. It reads what the file holds now, applies its own changes (add
an entry, set the current task, clear an issue it had noted) and writes that back, so what
someone wrote by hand, and what an earlier or parallel session noted, stays."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

TITLE = "# Session notes"
GOALS, DECISIONS, TASK, MODIFIED, ISSUES = (
    "Goals", "Decisions", "Current task", "Files modified", "Open issues")
SECTIONS = (GOALS, DECISIONS, TASK, MODIFIED, ISSUES)
"""swetui's own sections, in the order a new file lists them."""
PLACEHOLDER = "- (none yet)"
PREAMBLE = ("Kept by swetui and by you: edit freely; entries are merged, never replaced. "
            "The agent records a decision with a line `Decision: …` in its answer.")
CAPS = {GOALS: 10, DECISIONS: 25, TASK: 1, MODIFIED: 40, ISSUES: 15}
"""Entries kept in each of swetui's sections when it adds one (the oldest go first), so the
notes stay a small part of the memory layer. Sections you add are never cut."""
ENTRY_CHARS = 240

Operation = Literal["add", "move", "set", "remove", "remove_prefix"]


@dataclass(frozen=True)
class Change:
    """One change a session makes to the notes: to `section`, with `value` (one line)."""

    op: Operation
    section: str
    value: str


@dataclass
class NotesDocument:
    """The file as a preamble and titled sections of lines (kept as written)."""

    preamble: list[str] = field(default_factory=list)
    sections: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def new(cls) -> NotesDocument:
        return cls(preamble=[PREAMBLE], sections={title: [] for title in SECTIONS})

    def entries(self, section: str) -> list[str]:
        """The bullet entries of a section, without their `- `."""
        return [line[2:] for line in self.sections.get(section, []) if line.startswith("- ")]


def entry(text: str) -> str:
    """`text` as one entry: one line, not too long."""
    line = " ".join(text.split())
    return line if len(line) <= ENTRY_CHARS else line[:ENTRY_CHARS - 1] + "…"


def _known(title: str) -> str:
    """swetui's name for a section a person may have written in another case."""
    return next((known for known in SECTIONS if known.casefold() == title.casefold()), title)


def parse(text: str) -> NotesDocument:
    """The document in `text`; nothing in it is lost (blank lines aside)."""
    document = NotesDocument()
    current: list[str] | None = None
    title_seen = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("## "):
            current = document.sections.setdefault(_known(line[3:].strip()), [])
        elif current is None:
            if line == TITLE and not title_seen:
                title_seen = True
            elif line or document.preamble:
                document.preamble.append(line)
        elif line and line != PLACEHOLDER:
            current.append(line)
    while document.preamble and not document.preamble[-1]:
        document.preamble.pop()
    for title in SECTIONS:
        document.sections.setdefault(title, [])
    return document


def render(document: NotesDocument) -> str:
    parts = [TITLE]
    if document.preamble:
        parts.append("\n".join(document.preamble))
    for title, lines in document.sections.items():
        body = "\n".join(lines) if lines else PLACEHOLDER
        parts.append(f"## {title}\n{body}")
    return "\n\n".join(parts) + "\n"


def _cap(lines: list[str], section: str) -> None:
    limit = CAPS.get(section)
    if limit is None:
        return
    bullets = [index for index, line in enumerate(lines) if line.startswith("- ")]
    for index in reversed(bullets[:max(0, len(bullets) - limit)]):
        del lines[index]


def apply(document: NotesDocument, changes: Iterable[Change]) -> NotesDocument:
    """`document` with `changes` made, in order (it is changed in place and returned)."""
    for change in changes:
        lines = document.sections.setdefault(change.section, [])
        line = f"- {change.value}"
        match change.op:
            case "add":
                if line not in lines:
                    lines.append(line)
            case "move":  # to the end: the newest last
                if line in lines:
                    lines.remove(line)
                lines.append(line)
            case "set":
                lines[:] = [line]
            case "remove":
                if line in lines:
                    lines.remove(line)
            case "remove_prefix":
                lines[:] = [kept for kept in lines if not kept.startswith(line)]
        if change.op in ("add", "move", "set"):
            _cap(lines, change.section)
    return document
