"""The entries of the transcript: messages, reasoning, actions, answers and notices."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.markup import escape
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Collapsible, Static

from swetui.agent import (
    tool_icon,
)
from swetui.text import one_line, terminal_safe

TOOL_VERBS: dict[str, str] = {
    "read_file": "Read", "grep": "Grep", "list_dir": "List", "glob": "Glob",
    "edit_file": "Edit", "write_file": "Write", "bash": "Bash", "recall": "Recall",
    "todo": "Plan",
}
EXPANDED_LINES = 400
"""Lines of a tool result shown when expanded (the rest is summarised)."""


def describe_call(name: str, arguments: dict[str, Any]) -> str:
    """The short argument text of an action line: a path, a pattern, a command."""
    match name:
        case "read_file" | "edit_file" | "write_file":
            return str(arguments.get("path", ""))
        case "list_dir":
            return str(arguments.get("path") or ".")
        case "glob":
            return str(arguments.get("pattern", ""))
        case "grep":
            where = arguments.get("path") or arguments.get("glob")
            pattern = f'"{arguments.get("pattern", "")}"'
            return f"{pattern} in {where}" if where else pattern
        case "bash":
            return str(arguments.get("command", ""))
        case "recall":
            return f"{arguments.get('id', '')} ({arguments.get('form', 'summary')})"
        case "todo":
            items = arguments.get("items")
            return f"{len(items)} tasks" if isinstance(items, list) else ""
    return ", ".join(f"{key}={value!r}" for key, value in arguments.items())


class UserMessage(Static):
    """What the user sent."""

    def __init__(self, text: str) -> None:
        super().__init__(Text(terminal_safe(text)), classes="entry user-message", markup=False)


class NoticeLine(Static):
    """A line from swetui itself: a slash command's answer, a compaction, a decision."""

    def __init__(self, content: RenderableType, *, kind: str = "info") -> None:
        super().__init__(content, classes=f"entry notice -{kind}")


class ReasoningBlock(Collapsible):
    """The model's reasoning, dim; collapses once the answer starts."""

    def __init__(self) -> None:
        self._body = Static("", classes="reasoning-text", markup=False)
        super().__init__(self._body, title="Thinking", collapsed=False,
                         classes="entry reasoning")
        self._parts: list[str] = []

    def append(self, text: str) -> None:
        self._parts.append(text)
        self._body.update(Text(terminal_safe("".join(self._parts))))

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def finish(self) -> None:
        words = len(self.text.split())
        self.title = f"Thought ({words} words)"
        self.collapsed = True


class ActionEntry(Vertical, can_focus=True):
    """One tool call: icon, verb, argument, then a one-line result; enter expands it."""

    BINDINGS = [Binding("enter,space", "toggle_output", "Expand", show=True)]

    expanded: reactive[bool] = reactive(False)

    def __init__(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        super().__init__(classes="entry action -running")
        self.call_id = call_id
        self.tool = name
        self.arguments = arguments
        self.summary = ""
        self.content = ""
        self.is_error = False
        self._line = Static(self._line_text(), classes="action-line")
        self._detail = Static("", classes="action-detail", markup=False)

    def compose(self) -> ComposeResult:
        yield self._line
        yield self._detail

    def _line_text(self) -> Text:
        icon = tool_icon(self.tool)
        verb = TOOL_VERBS.get(self.tool, self.tool)
        line = Text()
        line.append(f"{icon} ", style="bold")
        line.append(one_line(verb), style="bold")
        line.append(f" {one_line(describe_call(self.tool, self.arguments))}")
        if self.summary:
            marker = "▾" if self.expanded else "▸"
            line.append(f"  {marker} ", style="dim")
            line.append(one_line(self.summary), style="red" if self.is_error else "dim")
        elif not self.content:
            line.append("  …", style="dim")
        return line

    def finish(self, summary: str, content: str, is_error: bool) -> None:
        self.summary = summary.splitlines()[0] if summary else ("error" if is_error else "done")
        self.content = content
        self.is_error = is_error
        self.remove_class("-running")
        self.set_class(is_error, "-error")
        self._line.update(self._line_text())

    def action_toggle_output(self) -> None:
        if self.content:
            self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_output()

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        if expanded:
            lines = self.content.splitlines()
            shown = "\n".join(lines[:EXPANDED_LINES])
            if len(lines) > EXPANDED_LINES:
                shown += f"\n… {len(lines) - EXPANDED_LINES} more lines"
            self._detail.update(Text(terminal_safe(shown)))
        else:
            self._detail.update("")
        self._line.update(self._line_text())


class CompletionLine(Static):
    """`✓ 4.2s · ↑1.2k ↓340` at the end of a turn (or how it was interrupted)."""

    def __init__(self, text: Text, *, kind: str = "done") -> None:
        super().__init__(text, classes=f"entry completion -{kind}")


class ErrorLine(Static):
    """An error, in place, in one or a few lines."""

    def __init__(self, message: str) -> None:
        super().__init__(f"[b]✗[/b] {escape(terminal_safe(message))}", classes="entry error")
