"""The transcript: an anchored scroll of what the user said and what the agent did."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Markdown

from swetui.agent import (
    AgentEvent,
    AnswerChunk,
    CommandShown,
    CompactionNotice,
    PlanChanged,
    ReasoningChunk,
    RetrievalDone,
    SessionLimit,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    format_cost,
)
from swetui.engine.events import (
    CompactionFinished,
    CompactionStarted,
    EngineNotice,
)
from swetui.text import one_line, terminal_safe
from swetui.ui.widgets.status import format_duration, format_tokens
from swetui.ui.widgets.transcript_answer import AnswerBlock
from swetui.ui.widgets.transcript_entries import (
    ActionEntry,
    CompletionLine,
    ErrorLine,
    NoticeLine,
    ReasoningBlock,
    UserMessage,
)


class Transcript(VerticalScroll):
    """Entries in order; follows the end while the user has not scrolled away."""

    BINDINGS = [
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "End", show=True),
        Binding("ctrl+o", "toggle_reasoning", "Reasoning", show=True),
    ]

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, can_focus=True)
        self._reasoning: ReasoningBlock | None = None
        self._answer: AnswerBlock | None = None
        self._actions: dict[str, ActionEntry] = {}
        self._waiting: dict[str, NoticeLine] = {}
        """The "waiting for approval" line of each pending action, by action id."""
        self.turn: int | None = None

    # -- writing -------------------------------------------------------------------------

    def _add(self, widget: Widget) -> Widget:
        self.mount(widget)
        if not self.is_anchored:
            self.call_after_refresh(self._anchor_when_full)
        return widget

    def _anchor_when_full(self) -> None:
        """Entries start at the top; once they overflow, follow the end (until the user
        scrolls away, and again when they come back to the end)."""
        if not self.is_anchored and self.max_scroll_y > 0:
            self.anchor()

    def on_resize(self) -> None:
        # Entries that fitted may overflow at the new size: follow the end from now on, as
        # if they had overflowed while being added (else a smaller window shows the top).
        self.call_after_refresh(self._anchor_when_full)

    def add_user(self, text: str) -> None:
        self._close_blocks()
        self._add(UserMessage(text))

    def notice(self, content: RenderableType, kind: str = "info") -> None:
        """A line from swetui (command results, decisions, compactions)."""
        self._add(NoticeLine(content, kind=kind))

    def approval(self, action_id: str, line: RenderableType, *, waiting: bool) -> None:
        """An approval's line: an action's "waiting" line becomes its decision in place, so
        nothing still says it waits once it is decided."""
        entry = self._waiting.pop(action_id, None)
        if waiting or entry is None or not entry.is_attached:
            entry = NoticeLine(line, kind="decision")
            self._add(entry)
        else:
            entry.update(line)
        if waiting:
            self._waiting[action_id] = entry

    def markdown(self, text: str) -> None:
        """A block of Markdown from swetui (notes, help)."""
        self._add(Markdown(terminal_safe(text), classes="entry notice-markdown"))

    def error(self, message: str) -> None:
        self._add(ErrorLine(message))

    def clear(self) -> None:
        self._close_blocks()
        self._actions.clear()
        self._waiting.clear()
        self.remove_children()

    def stream(self, turn: int, kind: str, text: str) -> None:
        """Coalesced answer or reasoning text of `turn`."""
        self.turn = turn
        if kind == "reasoning":
            if self._reasoning is None:
                self._reasoning = ReasoningBlock()
                self._add(self._reasoning)
            self._reasoning.append(text)
            return
        if self._reasoning is not None:
            self._reasoning.finish()
            self._reasoning = None
        if self._answer is None:
            self._answer = AnswerBlock()
            self._add(self._answer)
        self._answer.feed(terminal_safe(text))
        if not self.is_anchored:
            self.call_after_refresh(self._anchor_when_full)

    async def settle(self) -> None:
        """Wait until streamed text is on screen (tests and benchmarks)."""
        for answer in self.query(AnswerBlock):
            await answer.settle()

    def _close_blocks(self) -> None:
        if self._reasoning is not None:
            self._reasoning.finish()
        self._reasoning = None
        self._answer = None

    # -- events --------------------------------------------------------------------------

    def show_event(self, event: AgentEvent) -> None:
        """Render one engine or turn event (stream chunks arrive through `stream`)."""
        match event:
            case TurnStarted():
                self.turn = event.turn
                self.add_user(event.text)
            case AnswerChunk():
                self.stream(event.turn, "answer", event.text)
            case ReasoningChunk():
                self.stream(event.turn, "reasoning", event.text)
            case RetrievalDone() if event.item_ids or event.notes:
                self.notice(Text(f"⌕ {one_line(event.line())}", style="dim"), "retrieval")
            case ToolCallStarted():
                self._close_blocks()
                entry = ActionEntry(event.call_id, event.name, dict(event.arguments))
                self._actions[event.call_id] = entry
                self._add(entry)
            case ToolCallFinished():
                found = self._actions.get(event.call_id)
                if found is not None:
                    entry = found
                else:
                    entry = ActionEntry(event.call_id, event.name, {})
                    self._actions[event.call_id] = entry
                    self._add(entry)
                entry.finish(event.summary, event.content, event.is_error)
            case TurnFinished():
                self._finish_turn(event)
            case CompactionNotice():
                self.notice(Text(f"⇣ {one_line(event.message)}"), "compaction")
            case CommandShown():  # only from a resumed log: live, the command answers itself
                self.notice(Text(f"› {one_line(event.command)}", style="bold"), "command")
                self.notice(Text(terminal_safe(event.output)), "info")
            case PlanChanged():
                self.notice(Text(f"☐ {one_line(event.line())}"), "info")
            case SessionLimit(kind="chunk"):
                self.notice(Text(f"━━ {one_line(event.message)} ━━"), "compaction")
            case SessionLimit():
                self.notice(Text(f"! {one_line(event.message)}"), "warning")
            case CompactionStarted(trigger="chunk") | CompactionFinished(trigger="chunk"):
                # A chunk boundary: its own line (SessionLimit) says what happened; it is no
                # compaction to measure by its reduction.
                if isinstance(event, CompactionFinished):
                    self.notice(Text(
                        f"⇣ {len(event.folded)} earlier items archived behind the handoff: the "
                        f"request is {format_tokens(event.tokens_after)} tokens (was "
                        f"{format_tokens(event.tokens_before)}) · /undo compaction to restore",
                        style="dim"), "compaction")
            case CompactionStarted():
                self.notice(Text(f"⇣ Compacting {event.items} items ({event.trigger}, "
                                 f"{format_tokens(event.tokens_before)} tokens)…",
                                 style="dim"), "compaction")
            case CompactionFinished():
                self.notice(Text(
                    f"⇣ Compacted {len(event.folded)} items: "
                    f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)}"
                    f" tokens ({-event.reduction:+.0f}%) in {event.duration_ms:.0f} ms"
                    " · /undo compaction to restore"), "compaction")
            case EngineNotice():
                prefix = "! " if event.level == "warning" else "⇣ "
                self.notice(Text(f"{prefix}{terminal_safe(event.message)}"), event.level)

    def _finish_turn(self, event: TurnFinished) -> None:
        self._close_blocks()
        if event.error:
            self.error(event.error)
        line = Text()
        if event.interrupted:
            line.append("■ Interrupted", style="bold")
            kind = "interrupted"
        elif event.error:
            line.append("✗ Failed", style="bold")
            kind = "failed"
        else:
            line.append("✓ Done", style="bold")
            kind = "done"
        line.append(f" in {format_duration(event.duration)}")
        up, down = format_tokens(event.input_tokens), format_tokens(event.output_tokens)
        # The server reported no usage (llama.cpp's streams never do): say these are guesses.
        estimated = event.usage is not None and not event.usage.measured
        approx = "~" if estimated else ""
        # ↑ sums the turn's requests (a tool call makes another): say how many when not one.
        notes = [f"{event.requests} requests"] if event.requests > 1 else []
        notes += ["estimated"] if estimated else []
        line.append(f" · ↑{approx}{up} ↓{approx}{down}"
                    + (f" ({', '.join(notes)})" if notes else ""), style="dim")
        if event.cost is not None and event.cost.basis not in ("local", "none"):
            line.append(f" · {format_cost(event.cost)}", style="dim")
        self._add(CompletionLine(line, kind=kind))

    def replay(self, events: Iterable[AgentEvent]) -> None:
        """Re-render a resumed session's turn events."""
        for event in events:
            self.show_event(event)
        self._close_blocks()

    def action_toggle_reasoning(self) -> None:
        blocks = list(self.query(ReasoningBlock))
        if blocks:
            collapse = not all(block.collapsed for block in blocks)
            for block in blocks:
                block.collapsed = collapse
