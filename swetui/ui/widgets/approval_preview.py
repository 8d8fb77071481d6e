"""The preview of one pending action: why it is protected, then its diff or its command."""

from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from swetui.agent import (
    PendingAction,
)
from swetui.text import one_line, terminal_safe
from swetui.ui.widgets.diff_view import DiffView, syntax_theme


def action_title(action: PendingAction) -> str:
    """One line naming the action, as the list shows it."""
    if action.summary:
        return one_line(action.summary)
    if action.kind == "bash":
        return one_line(f"run: {action.command or ''}")
    return one_line(f"{action.kind} {action.path or ''}")


KIND_ICONS = {"edit": "✎", "write": "✚", "bash": "$", "mcp": "⚙"}


class ActionPreview(Vertical):
    """What approving the selected action would do."""

    DEFAULT_CSS = """
    ActionPreview {
        height: 1fr;
        & > #preview-protected {
            display: none;
            background: $error 25%;
            color: $text-error;
            text-style: bold;
            padding: 0 1;
        }
        & > #preview-protected.-shown { display: block; }
        & > #preview-command {
            display: none;
            padding: 0 1;
            height: auto;
        }
        & > #preview-command.-shown { display: block; }
        & > DiffView { display: none; }
        & > DiffView.-shown { display: block; }
        & > #preview-empty { color: $text-muted; padding: 1 1; display: none; }
        & > #preview-empty.-shown { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.action: PendingAction | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="preview-protected")
        yield Static("", id="preview-command")
        yield DiffView(id="preview-diff")
        yield Static("No pending actions", id="preview-empty", classes="-shown")

    @property
    def diff(self) -> DiffView:
        return self.query_one(DiffView)

    def show(self, action: PendingAction | None, *, rejected: set[int] | None = None) -> None:
        """Preview `action` (None: the queue is empty)."""
        self.action = action
        protected = self.query_one("#preview-protected", Static)
        command = self.query_one("#preview-command", Static)
        empty = self.query_one("#preview-empty", Static)
        diff = self.diff
        empty.set_class(action is None, "-shown")
        protected.set_class(bool(action and action.protected), "-shown")
        if action is not None and action.protected:
            protected.update(Text(f"⚠ Protected: {action.protected} — always asks",
                                  overflow="fold"))
        is_bash = action is not None and action.kind in ("bash", "mcp")
        command.set_class(is_bash, "-shown")
        diff.set_class(action is not None and not is_bash, "-shown")
        if action is None:
            return
        if is_bash:
            command.update(self._command(action))
            return
        title = one_line(f"{action.kind} {action.path or ''}")
        if action.old_content is None:
            title += " (new file)"
        diff.show(title, action.hunks, action.old_content, action.new_content, action.path,
                  rejected=rejected or set())
        if not action.hunks:
            diff.query_one(".diff-file", Static).update(
                Text(f"{title}: no change to the file", style="dim"))

    def _command(self, action: PendingAction) -> Text:
        theme = syntax_theme(self.app.current_theme.dark)
        text = Text()
        if action.kind == "mcp":
            name, _, arguments = (action.command or "").partition(" ")
            text.append("MCP tool call\n", style="bold")
            text.append(one_line(name), style="bold")
            code = Syntax(terminal_safe(arguments), "json", theme=theme,
                          background_color="default", word_wrap=True).highlight(
                terminal_safe(arguments))
            code.rstrip()
            text.append("\n")
            text.append_text(code)
            return text
        text.append("command\n", style="bold")
        shown = terminal_safe(action.command or "")
        code = Syntax(shown, "bash", theme=theme, background_color="default",
                      word_wrap=True).highlight(f"$ {shown}")
        code.rstrip()
        text.append_text(code)
        text.append("\n\ncwd  ", style="dim")
        text.append(one_line(action.cwd))
        text.append("\nruns  ", style="dim")
        if action.sandbox_denied is not None:
            text.append("OUTSIDE the sandbox if approved", style="bold red")
            text.append("\nblocked  ", style="dim")
            text.append(action.sandbox_denied)
        else:
            text.append("in the sandbox (u: approve and run it unconfined)")
        if action.timeout is not None:
            text.append("\ntimeout  ", style="dim")
            text.append(f"{action.timeout:g}s")
        return text
