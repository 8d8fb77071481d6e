"""The handoff record a chunk boundary writes (`.swetui/handoffs/<session>-<chunk>.json`,
seed 003): completed and pending tasks, modified files, state and a summary of at most
2,000 characters. The next chunk's requests start from its text."""

from __future__ import annotations

from pydantic import BaseModel, Field

from swetui.engine.compaction.text import item_errors, summary_facts
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer
from swetui.engine.payloads import SummaryFacts

SUMMARY_CHARS = 2_000


class Handoff(BaseModel):
    """What the next chunk needs to carry on (the JSON file and the handoff item)."""

    session_id: str
    chunk: int
    """The chunk that ended."""
    trigger: str
    turns_completed: int
    first_turn: int
    last_turn: int
    completed_tasks: list[str] = Field(default_factory=list)
    pending_tasks: list[str] = Field(default_factory=list)
    modified_files: list[str] = Field(default_factory=list)
    files_read: list[str] = Field(default_factory=list)
    state: dict[str, str] = Field(default_factory=dict)
    summary: str = Field(max_length=SUMMARY_CHARS)

    def text(self) -> str:
        """The handoff as the next chunk's requests carry it."""
        def listed(values: list[str]) -> str:
            return "\n".join(f"- {value}" for value in values) or "- (none)"

        state = "\n".join(f"- {key}: {value}" for key, value in self.state.items())
        return (f"Handoff from chunk {self.chunk} of this session (turns {self.first_turn}–"
                f"{self.last_turn}, ended: {self.trigger}). The earlier history is archived: "
                f"`recall` brings back any turn (t{self.first_turn} … t{self.last_turn}).\n\n"
                f"Summary:\n{self.summary}\n\nCompleted tasks:\n{listed(self.completed_tasks)}"
                f"\n\nPending tasks:\n{listed(self.pending_tasks)}\n\nFiles modified:\n"
                f"{listed(self.modified_files)}\n\nState:\n{state or '- (none)'}")


def chunk_exchanges(engine: ContextEngine, first: int,
                    last: int) -> list[tuple[int, list[ContextItem]]]:
    """The conversation of turns `first`..`last`, by turn, in order."""
    turns: dict[int, list[ContextItem]] = {}
    for item in engine:
        if (item.layer is Layer.HISTORY and first <= item.turn_created <= last
                and item.kind in (ItemKind.USER_MESSAGE, ItemKind.ASSISTANT_MESSAGE,
                                  ItemKind.TOOL_CALL)):
            turns.setdefault(item.turn_created, []).append(item)
    return sorted(turns.items())


def handoff_summary(engine: ContextEngine, exchanges: list[tuple[int, list[ContextItem]]],
                    previous: str | None) -> str:
    """At most 2,000 characters: the objective, the latest requests and outcomes, what was
    done, the errors still showing, and the previous chunk's summary when there was one."""
    facts = summary_facts(SummaryFacts(), exchanges)
    lines: list[str] = []
    if facts.objective:
        lines.append(f"Objective: {facts.objective}")
    recent = [(turn, items) for turn, items in exchanges][-4:]
    for turn, items in recent:
        asked = next((i.content for i in items if i.kind is ItemKind.USER_MESSAGE), "")
        answer = next((i.content for i in reversed(items)
                       if i.kind is ItemKind.ASSISTANT_MESSAGE and i.content.strip()), "")
        lines.append(f"t{turn}: asked {_gist(asked, 20)}; outcome {_gist(answer, 24)}")
    if facts.achievements:
        lines.append("Done: " + "; ".join(facts.achievements[-8:]))
    errors = [line for _turn, items in exchanges[-3:] for item in items
              if item.kind is ItemKind.TOOL_CALL and item.call.is_error
              and item.state is not ItemState.DROPPED for line in item_errors(item)]
    if errors:
        lines.append("Recent errors: " + " | ".join(errors[-3:]))
    if facts.functions:
        lines.append("Functions touched: " + " ".join(facts.functions[-10:]))
    if previous:
        lines.append(f"Before that: {_gist(previous, 60)}")
    text = "\n".join(lines) or "(no exchanges in this chunk)"
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _gist(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")
