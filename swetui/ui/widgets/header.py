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
        badge = self.badge()
        width = self.content_size.width
        rest = Text(no_wrap=True, overflow="ellipsis")
        rest.append(f" {self.model} ", style="reverse")
        rest.append("  ")
        mode_style = "bold red" if self.mode == "auto" else "bold"
        rest.append(f"mode {self.mode}", style=mode_style)
        if self.sandbox_off:
            rest.append("  ")
            rest.append(" no sandbox ", style="bold reverse red")
        if self.busy:
            rest.append("  ● working", style="dim")
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("swetui", style="bold")
        line.append("  ")
        # The workspace path gives way first (cut with "…"), then the rest, never the badge.
        room = width - line.cell_len - 2 - rest.cell_len - (len(badge) + 2 if badge else 0)
        workspace = Text(one_line(self.workspace), no_wrap=True)
        if room >= 6:
            workspace.truncate(room, overflow="ellipsis")
            line.append_text(workspace)
            line.append("  ")
        line.append_text(rest)
        if badge:
            room = max(0, width - len(badge) - 2)
            if line.cell_len > room:
                line.truncate(room, overflow="ellipsis")
            line.append(" " * max(2, width - line.cell_len - len(badge)))
            line.append(badge, style="bold reverse")
        return line

    def badge(self) -> str:
        """The pending-approvals badge as wide as the header allows ("" when hidden)."""
        if not (self.pending and self.show_badge):
            return ""
        noun = "approval" if self.pending == 1 else "approvals"
        full = f" ⚑ {self.pending} {noun} pending (F5) "
        if len(full) * 2 <= self.content_size.width:
            return full
        return f" ⚑ {self.pending} pending F5 "

    def on_click(self, event: events.Click) -> None:
        if self.pending and event.x >= self.size.width - len(self.badge()) - 1:
            self.post_message(self.BadgeClicked())
