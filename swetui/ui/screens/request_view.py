"""'What is sent': the exact next request, as the engine assembles it.

Tabs: an overview (tokens per layer, the processor chain with notes and failures, items
trimmed to fit), the conversation (system text and each message with its role), the tools,
and the request itself as JSON (what a provider receives, before its own wire format).
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TabbedContent, TabPane, TextArea

from swetui.engine.assembly import AssemblyResult
from swetui.engine.context import ContextEngine, UnknownItem
from swetui.messages import Message
from swetui.text import one_line, terminal_safe
from swetui.ui.widgets.gauge import format_tokens

MESSAGE_PREVIEW_LINES = 200
"""Lines of each message shown in the conversation tab (the JSON tab has all of it)."""


def _clip(text: str, lines: int = MESSAGE_PREVIEW_LINES) -> str:
    text = terminal_safe(text)  # what the model is sent, shown: control characters visible
    parts = text.split("\n")
    if len(parts) <= lines:
        return text
    return "\n".join(parts[:lines]) + f"\n… {len(parts) - lines:,} more lines (see the JSON tab)"


class RequestView(ModalScreen[None]):
    """The exact next request, with how it was made (esc or q closes)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        Binding("1", "tab('overview')", "Overview", show=False),
        Binding("2", "tab('conversation')", "Conversation", show=False),
        Binding("3", "tab('tools')", "Tools", show=False),
        Binding("4", "tab('json')", "JSON", show=False),
    ]

    def __init__(self, result: AssemblyResult, engine: ContextEngine | None = None) -> None:
        super().__init__()
        self.result = result
        self.engine = engine

    def compose(self) -> ComposeResult:
        request = self.result.request
        with Vertical(id="request-dialog"):
            yield Label("What is sent", id="request-title")
            yield Label(
                f"{request.model or 'no model'} · {format_tokens(self.result.total)} tokens · "
                f"{len(request.messages)} messages · {len(request.tools)} tools · "
                f"max {format_tokens(request.max_tokens)} out", id="request-facts", markup=False)
            with TabbedContent(initial="overview", id="request-tabs"):
                with TabPane("Overview", id="overview"), VerticalScroll():
                    yield Static(self._layers(), id="request-layers")
                    yield Static(self._chain(), id="request-chain")
                    yield Static(self._trimmed(), id="request-trimmed")
                with TabPane("Conversation", id="conversation"), VerticalScroll():
                    yield Static(Text("system", style="bold"), classes="role")
                    yield Static(Text(_clip(request.system) or "(empty)"), classes="content")
                    for message in request.messages:
                        yield Static(self._role(message), classes="role")
                        yield Static(Text(_clip(message.content) or "(empty)"),
                                     classes="content")
                    if request.context:
                        yield Static(Text("context · after the newest message, uncached",
                                          style="bold"), classes="role")
                        yield Static(Text(_clip(request.context)), classes="content")
                with TabPane("Tools", id="tools"), VerticalScroll():
                    yield Static(self._tools(), id="request-tools")
                with TabPane("JSON", id="json"):
                    yield TextArea(terminal_safe(json.dumps(request.model_dump(mode="json"),
                                                      indent=2, ensure_ascii=False)),
                                   read_only=True, show_line_numbers=True, id="request-json")
            yield Static("esc close · 1–4 tabs", id="request-keys")

    def _layers(self) -> Table:
        table = Table(title="Tokens per layer", title_justify="left", expand=False,
                      box=None, padding=(0, 1))
        table.add_column("layer")
        table.add_column("tokens", justify="right")
        table.add_column("share", justify="right")
        total = self.result.total or 1
        for layer, tokens in self.result.layer_tokens.items():
            table.add_row(layer.value, f"{tokens:,}", f"{tokens / total:.0%}")
        table.add_row(Text("total", style="bold"), Text(f"{self.result.total:,}", style="bold"),
                      "")
        return table

    def _chain(self) -> Table:
        table = Table(title="Processor chain", title_justify="left", box=None, padding=(0, 1))
        table.add_column("")
        table.add_column("processor")
        table.add_column("items", justify="right")
        table.add_column("what it did")
        for record in self.result.chain:
            if record.ok:
                table.add_row(Text("✓", style="green"), record.name, str(record.items),
                              Text(record.note))
            else:
                table.add_row(Text("✗", style="bold red"), record.name, "—",
                              Text(f"failed, skipped: {record.error}", style="red"))
        return table

    def _trimmed(self) -> Text:
        if not self.result.trimmed:
            return Text("Nothing trimmed: every included item fits.", style="dim")
        text = Text(f"Trimmed to fit the window ({len(self.result.trimmed)}):\n", style="bold")
        for item_id in self.result.trimmed:
            title = item_id
            if self.engine is not None:
                try:
                    title = f"{item_id} {self.engine.get(item_id).title}"
                except UnknownItem:
                    pass
            text.append(f"  · {one_line(title)}\n")
        return text

    @staticmethod
    def _role(message: Message) -> Text:
        text = Text(message.role, style="bold")
        if message.name:
            text.append(f" · {one_line(message.name)}", style="dim")
        if message.tool_call_id:
            text.append(f" · answers {message.tool_call_id}", style="dim")
        if message.is_error:
            text.append(" · error", style="red")
        for call in message.tool_calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            text.append("\n  → " + one_line(f"{call.name}({arguments[:200]}) [{call.id}]"),
                        style="dim")
        return text

    def _tools(self) -> Text:
        tools = self.result.request.tools
        if not tools:
            return Text("No tools are sent.", style="dim")
        text = Text()
        for tool in tools:
            text.append(one_line(tool.name), style="bold")
            params = ", ".join(tool.parameters.get("properties", {}))
            text.append(f"({one_line(params)})\n", style="dim")
            text.append(f"  {terminal_safe(tool.description)}\n")
        return text

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_close(self) -> None:
        self.dismiss(None)
