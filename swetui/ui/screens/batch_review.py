"""Review every pending action together: each diff or command, approve or deny each one."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from swetui.agent import (
    PendingAction,
)
from swetui.text import one_line, terminal_safe
from swetui.ui.widgets.approval_preview import action_title
from swetui.ui.widgets.diff_view import highlight_lines, render_hunk, syntax_theme


class BatchEntry(Static, can_focus=True):
    """One action of the batch, with its approve/deny choice."""

    def __init__(self, action: PendingAction, approve: bool) -> None:
        super().__init__(id=f"batch-{action.id}")
        self.action = action
        self.approve = approve

    def render(self) -> Text:
        action = self.action
        mark = Text("✓ approve" if self.approve else "✗ deny",
                    style="bold green" if self.approve else "bold red")
        text = Text.assemble(mark, "  ", (action_title(action), "bold"))
        if action.protected:
            text.append(f"\n⚠ Protected: {one_line(action.protected)}", style="bold red")
        if action.kind == "bash":
            text.append(f"\n$ {terminal_safe(action.command or '')}\n  in {one_line(action.cwd)}")
            return text
        if action.kind == "mcp":
            text.append(f"\n{terminal_safe(action.command or '')}")
            return text
        theme = syntax_theme(self.app.current_theme.dark)
        old = highlight_lines(action.old_content, action.path, theme)
        new = highlight_lines(action.new_content, action.path, theme)
        for hunk in action.hunks:
            text.append("\n")
            text.append_text(render_hunk(hunk, old, new, accepted=self.approve))
        return text


class BatchReview(ModalScreen[dict[str, bool] | None]):
    """Dismisses with {action id: approve?} on enter, or None on esc (nothing decided)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("space,x", "toggle_entry", "Approve/deny"),
        Binding("y", "set(True)", "Approve"),
        Binding("n", "set(False)", "Deny"),
        Binding("a", "all(True)", "Approve all"),
        Binding("N", "all(False)", "Deny all"),
        Binding("enter,ctrl+s", "apply", "Apply", priority=True),
        Binding("escape", "cancel", "Cancel"),
        Binding("down,j", "app.focus_next", "Next", show=False),
        Binding("up,k", "app.focus_previous", "Previous", show=False),
    ]

    def __init__(self, actions: list[PendingAction]) -> None:
        super().__init__()
        self.actions = actions

    def compose(self) -> ComposeResult:
        with Vertical(id="batch-dialog"):
            yield Label(f"Batch review · {len(self.actions)} pending", id="batch-title")
            with VerticalScroll(id="batch-list"):
                for action in self.actions:
                    yield BatchEntry(action, approve=not action.protected)
            yield Static("space approve/deny · y/n · a all · N none · enter apply · esc cancel",
                         id="batch-keys")

    def on_mount(self) -> None:
        entries = self.query(BatchEntry)
        if entries:
            entries.first().focus()

    @property
    def choices(self) -> dict[str, bool]:
        return {entry.action.id: entry.approve for entry in self.query(BatchEntry)}

    def _focused_entry(self) -> BatchEntry | None:
        return self.focused if isinstance(self.focused, BatchEntry) else None

    def action_toggle_entry(self) -> None:
        if (entry := self._focused_entry()) is not None:
            entry.approve = not entry.approve
            entry.refresh(layout=True)

    def action_set(self, approve: bool) -> None:
        if (entry := self._focused_entry()) is not None:
            entry.approve = approve
            entry.refresh(layout=True)
            self.focus_next()

    def action_all(self, approve: bool) -> None:
        for entry in self.query(BatchEntry):
            entry.approve = approve
            entry.refresh(layout=True)

    def action_apply(self) -> None:
        self.dismiss(self.choices)

    def action_cancel(self) -> None:
        self.dismiss(None)
