"""The header: workspace, model, mode, and a badge for pending approvals."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from swetui.text import one_line


def short_path(path: Path) -> str:
    """The workspace as people say it: `~/src/app` rather than `/home/me/src/app`."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


class WorkspaceHeader(Widget):
    """One line: `swetui  ~/repo  model  mode  ⚑ 2 pending`."""

    DEFAULT_CSS = """
    WorkspaceHeader {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    class BadgeClicked(Message):
        """The pending-approvals badge was clicked."""

    workspace: reactive[str] = reactive("")
    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("ask")
    pending: reactive[int] = reactive(0)
    show_badge: reactive[bool] = reactive(True)
    busy: reactive[bool] = reactive(False)
    sandbox_off: reactive[str] = reactive("")
    """Why commands are not confined here ("" when they are)."""

    def render(self) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("swetui", style="bold")
        line.append("  ")
        line.append(one_line(self.workspace))
        line.append("  ")
        line.append(f" {self.model} ", style="reverse")
        line.append("  ")
        mode_style = "bold red" if self.mode == "auto" else "bold"
        line.append(f"mode {self.mode}", style=mode_style)
        if self.sandbox_off:
            line.append("  ")
            line.append(" no sandbox ", style="bold reverse red")
        if self.busy:
            line.append("  ● working", style="dim")
        if self.pending and self.show_badge:
            noun = "approval" if self.pending == 1 else "approvals"
            badge = f" ⚑ {self.pending} {noun} pending (F5) "
            padding = max(2, self.content_size.width - line.cell_len - len(badge))
            line.append(" " * padding)
            line.append(badge, style="bold reverse")
        return line

    def on_click(self, event: events.Click) -> None:
        if self.pending and event.x >= self.size.width - 36:
            self.post_message(self.BadgeClicked())
