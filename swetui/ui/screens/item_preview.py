"""A modal that shows a context item's full content, highlighted when it is code.

Large contents go into a read-only TextArea (it draws only what is visible); smaller ones are
highlighted with Pygments through Rich's `Syntax`. `o` flips between the edit and the
original of an edited item.
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TextArea

from swetui.engine.items import ContextItem, ItemKind
from swetui.text import one_line, terminal_safe
from swetui.ui.widgets.gauge import format_tokens

HIGHLIGHT_LINES = 3_000
"""Above this many lines the preview is plain (highlighting it all would stall the UI)."""

CODE_KINDS = frozenset({ItemKind.FILE, ItemKind.TOOL_CALL, ItemKind.TOOL_SCHEMA,
                        ItemKind.GREP, ItemKind.SHORTLIST, ItemKind.MEMORY_FILE,
                        ItemKind.SESSION_NOTES})


_NUMBERED_LINE = re.compile(r" *\d+\t")


def numbered(content: str) -> bool:
    """Whether the text carries its own line numbers (a read_file result's `   12\t`), so
    a second column of them would only repeat them."""
    lines = [line for line in content.splitlines()[:50] if line.strip()]
    hits = sum(1 for line in lines if _NUMBERED_LINE.match(line))
    return bool(lines) and hits * 2 > len(lines)


def lexer_for(item: ContextItem) -> str | None:
    """The Pygments lexer for the item's content, or None for plain prose."""
    if item.kind is ItemKind.TOOL_SCHEMA:
        return "json"
    path = item.source.path
    if path and item.kind in CODE_KINDS:
        lexer = Syntax.guess_lexer(path, item.content[:4_000])
        return None if lexer == "default" else lexer
    if item.kind in (ItemKind.USER_MESSAGE, ItemKind.ASSISTANT_MESSAGE, ItemKind.SUMMARY,
                     ItemKind.SYSTEM_PROMPT):
        return "markdown"
    return None


class ItemPreview(ModalScreen[None]):
    """The full content of one context item (esc or q closes)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        Binding("o", "toggle_original", "Original/edit"),
    ]

    def __init__(self, item: ContextItem, sent_tokens: int) -> None:
        super().__init__()
        self.item = item
        self.sent_tokens = sent_tokens
        self.showing_original = False

    def compose(self) -> ComposeResult:
        item = self.item
        with Vertical(id="preview-dialog"):
            yield Label(one_line(item.title), id="preview-title", markup=False)
            yield Label(self._facts(), id="preview-facts", markup=False)
            with VerticalScroll(id="preview-body"):
                yield from self._body(item.content)
            keys = "esc close" + (" · o original/edit" if item.edited else "")
            yield Static(keys, id="preview-keys", markup=False)

    def _facts(self) -> str:
        item = self.item
        facts = [item.kind.value, f"layer {item.effective_layer.value}", item.state.value,
                 f"{format_tokens(self.sent_tokens)} tokens sent",
                 f"{format_tokens(item.tokens)} in full"]
        if item.pinned:
            facts.append("pinned")
        if item.edited:
            facts.append("edited: showing the edit" if not self.showing_original
                         else "edited: showing the original")
        if item.source.path:
            facts.append(item.source.path)
        return one_line(" · ".join(facts))

    def _body(self, content: str) -> ComposeResult:
        content = terminal_safe(content)  # read-only here: shown, never obeyed
        if not content:
            yield Static(Text("(empty)", style="italic"), id="preview-text")
            return
        lines = content.count("\n") + 1
        lexer = lexer_for(self.item)
        if lines > HIGHLIGHT_LINES:
            yield TextArea(content, read_only=True, show_line_numbers=not numbered(content),
                           id="preview-text")
        elif lexer is not None:
            numbers = lexer != "markdown" and not numbered(content)
            yield Static(Syntax(content, lexer, line_numbers=numbers,
                                word_wrap=True, theme="ansi_dark"), id="preview-text")
        else:
            yield Static(Text(content), id="preview-text")

    def on_mount(self) -> None:
        self.query_one("#preview-body").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_original":
            return self.item.edited
        return True

    async def action_toggle_original(self) -> None:
        if self.item.original is None:
            return
        self.showing_original = not self.showing_original
        content = self.item.original if self.showing_original else self.item.content
        body = self.query_one("#preview-body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(list(self._body(content)))
        self.query_one("#preview-facts", Label).update(self._facts())

    def action_close(self) -> None:
        self.dismiss(None)
