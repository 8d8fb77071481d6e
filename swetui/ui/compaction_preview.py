"""A compaction shown before it is done (DESIGN §3): what will fold, the tokens before and
after; enter compacts, esc leaves everything as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from swetui.agent import ChangePrice, CompactionChange, Session
from swetui.engine.compaction import CompactionPlan
from swetui.text import one_line
from swetui.ui.compaction_figures import compaction_figures

Outcome = Literal["compacted", "cancelled", "nothing"]

FOLDS_SHOWN = 200
"""Folds listed by name; the rest are counted (a long session folds thousands)."""


def figures_table(plan: CompactionPlan, window: int, price: ChangePrice | None = None) -> Table:
    table = Table(box=None, padding=(0, 1), show_header=False, expand=False)
    figures = compaction_figures(plan, window, price)
    # The figures never wrap or shrink; their notes give way on a narrow terminal.
    table.add_column("", style="bold", no_wrap=True,
                     min_width=max(len(figure.label) for figure in figures))
    table.add_column("", justify="right", no_wrap=True,
                     min_width=max(len(figure.value) for figure in figures))
    table.add_column("", style="dim", no_wrap=True, overflow="ellipsis")
    for figure in figures:
        table.add_row(figure.label, figure.value, figure.note)
    return table


def folds_text(plan: CompactionPlan) -> Text:
    """Each folded item with its tokens before and after."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for fold in plan.folds[:FOLDS_SHOWN]:
        text.append(f"{fold.tokens_before:>7,} → {fold.tokens_after:<6,}", style="dim")
        text.append(f" {one_line(fold.title)}\n")
    if len(plan.folds) > FOLDS_SHOWN:
        text.append(f"… and {len(plan.folds) - FOLDS_SHOWN:,} more\n", style="dim")
    text.rstrip()
    return text


class CompactionPreview(ModalScreen[bool]):
    """Dismisses True to compact (enter), False to leave the context as it is (esc)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("enter", "commit", "Compact", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    CANCELLED = "Compaction cancelled: nothing changed."

    def __init__(self, plan: CompactionPlan, window: int,
                 price: ChangePrice | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.window = window
        self.price = price
        """What it un-caches and what the next send costs (None: not priced)."""

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="compaction-dialog"):
            yield Label("Compact the context?", id="compaction-title")
            yield Static(figures_table(plan, self.window, self.price), id="compaction-figures")
            if plan.instructions:
                yield Static(Text(f"keeping: {one_line(plan.instructions)}"),
                             id="compaction-instructions")
            with VerticalScroll(id="compaction-folds"):
                yield Static(folds_text(plan))
            if plan.notes:
                yield Static(Text(one_line(" · ".join(plan.notes)), style="dim"),
                             id="compaction-notes")
            yield Static("enter compact · esc cancel (nothing changes)", id="compaction-keys")

    def action_commit(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


async def compact_after_preview(app: App[None], session: Session, *,
                                trigger: Literal["manual", "selection"],
                                item_ids: list[str] | None = None,
                                instructions: str | None = None) -> Outcome:
    """Preview a compaction, and run it if the user says so.

    When nothing would fold (or folding would not make the request smaller), there is
    nothing to preview: the session's compaction says why in the transcript."""
    plan = session.preview_compaction(item_ids, instructions)
    if plan.folds and plan.tokens_after < plan.tokens_before:
        window = session.engine.budget().limit
        price = session.price_change(CompactionChange(plan))
        if not await app.push_screen_wait(CompactionPreview(plan, window, price)):
            return "cancelled"
    finished = await session.compact(trigger=trigger, instructions=instructions,
                                     item_ids=item_ids)
    return "nothing" if finished is None else "compacted"
