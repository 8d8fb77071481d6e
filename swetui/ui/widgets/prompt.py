"""The prompt: multi-line input with history and completion of `/` commands and `@path`."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from swetui.text import one_line
from swetui.ui.widgets.prompt_complete import Completer, Completion

MAX_PROMPT_CHARS = 100_000
"""What the prompt accepts; larger pastes are refused with a message (use `@path`)."""
DRAFT_DEBOUNCE = 0.15
NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter"})


def human_size(chars: int) -> str:
    if chars >= 1_000_000:
        return f"{chars / 1_000_000:.1f} MB"
    if chars >= 1_000:
        return f"{chars / 1_000:.0f} KB"
    return f"{chars} characters"


class CompletionMenu(OptionList):
    """Suggestions shown above the prompt while typing `/` or `@`."""

    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        max-height: 8;
        border: none;
        padding: 0;
        background: $panel;
    }
    CompletionMenu.-visible { display: block; }
    """

    def __init__(self) -> None:
        super().__init__(id="completions")
        self.can_focus = False
        self.completions: list[Completion] = []

    @property
    def showing(self) -> bool:
        """Whether the menu is open (not Widget.visible, which Textual itself sets)."""
        return self.has_class("-visible")

    def show(self, completions: list[Completion]) -> None:
        self.completions = completions
        self.clear_options()
        if not completions:
            self.remove_class("-visible")
            return
        # A file name is text, never markup: `[@click=…]` in a name must not become a link.
        self.add_options([Option(Text.assemble(one_line(item.label),
                                               ("  " + one_line(item.help), "dim")
                                               if item.help else ""))
                          for item in completions])
        self.highlighted = 0
        self.add_class("-visible")

    def hide(self) -> None:
        self.completions = []
        self.remove_class("-visible")

    def chosen(self) -> Completion | None:
        if not self.showing or self.highlighted is None or not self.completions:
            return None
        return self.completions[self.highlighted]


class PromptInput(TextArea):
    """The text area: enter sends, ctrl+j (or shift+enter where the terminal sends it)
    starts a new line, up/down at the first/last line walk the history."""

    BINDINGS = [
        Binding("enter", "submit", "Send", show=True, priority=False),
        Binding("ctrl+j", "newline", "Newline", show=True, key_display="ctrl+j"),
        Binding("tab", "complete", "Complete", show=False),
    ]

    BLINK = True
    """Tests switch the cursor blink off so snapshots are stable."""

    class Submitted(Message):
        """The user sent the prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, menu: CompletionMenu) -> None:
        super().__init__("", id="prompt-input", soft_wrap=True, tab_behavior="focus",
                         show_line_numbers=False, highlight_cursor_line=False, compact=True)
        self.menu = menu
        self.prompt_history: list[str] = []
        self._history_index: int | None = None
        self._stash = ""

    def on_mount(self) -> None:
        self.cursor_blink = self.BLINK

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if event.is_printable:
            self._history_index = None
        if key == "enter":
            event.stop()
            event.prevent_default()
            self.action_submit()
        elif key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()
        elif key == "tab" and self.menu.showing:
            event.stop()
            event.prevent_default()
            self.action_complete()
        elif key == "escape" and self.menu.showing:
            event.stop()
            event.prevent_default()
            self.menu.hide()

    async def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        total = len(self.text) + len(event.text)
        if total > MAX_PROMPT_CHARS:
            event.prevent_default()
            event.stop()
            self.notify(f"Paste of {human_size(len(event.text))} refused: the prompt takes "
                        f"{human_size(MAX_PROMPT_CHARS)} at most. Save it to a file in the "
                        "workspace and add it with @path.", severity="warning", timeout=8)

    def action_submit(self) -> None:
        chosen = self.menu.chosen()
        if chosen is not None and not self._completes_to_itself(chosen):
            self.accept(chosen)
            return
        text = self.text.strip()
        if not text:
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = None
        self.clear()
        self.menu.hide()
        self.post_message(self.Submitted(text))

    def _completes_to_itself(self, completion: Completion) -> bool:
        """Enter on a fully typed `/stats` sends it rather than completing it again."""
        row, column = self.cursor_location
        typed = self.document.get_line(row)[completion.start:column]
        return typed == completion.value.rstrip()

    def action_newline(self) -> None:
        self.insert("\n")

    def action_complete(self) -> None:
        chosen = self.menu.chosen()
        if chosen is not None:
            self.accept(chosen)

    def accept(self, completion: Completion) -> None:
        """Replace the token being completed with the chosen value."""
        row, column = self.cursor_location
        self.replace(completion.value, (row, min(completion.start, column)), (row, column))
        self.menu.hide()

    def action_cursor_up(self, select: bool = False) -> None:
        if self.menu.showing and not select:
            self.menu.action_cursor_up()
        elif not select and self.cursor_location[0] == 0 and self.prompt_history:
            self._walk_history(-1)
        else:
            super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if self.menu.showing and not select:
            self.menu.action_cursor_down()
        elif (not select and self._history_index is not None
              and self.cursor_location[0] == self.document.line_count - 1):
            self._walk_history(1)
        else:
            super().action_cursor_down(select)

    @property
    def browsing_history(self) -> bool:
        """True while the text is an entry recalled with up/down."""
        return self._history_index is not None

    def _walk_history(self, step: int) -> None:
        if self._history_index is None:
            if step > 0:
                return
            self._stash = self.text
            index = len(self.prompt_history) - 1
        else:
            index = self._history_index + step
        if index < 0:
            return
        if index >= len(self.prompt_history):
            self._history_index = None
            self.load_text(self._stash)
        else:
            self._history_index = index
            self.load_text(self.prompt_history[index])
        self.move_cursor(self.document.end)


class PromptBar(Vertical):
    """The completion menu, the input and a one-line hint, as one pane."""

    class DraftChanged(Message):
        """The draft changed (debounced): the gauge counts it."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, completer: Completer | None = None, *,
                 id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.completer = completer or Completer()
        self.menu = CompletionMenu()
        self.input = PromptInput(self.menu)
        self._draft_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield self.menu
        with Horizontal(id="prompt-row"):
            yield Static("›", id="prompt-marker")
            yield self.input
        yield Static("enter send · ctrl+j newline · / commands · @ files · ↑ history",
                     id="prompt-hint")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        if self.input.browsing_history:
            self.menu.hide()
        else:
            self._update_completions()
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(DRAFT_DEBOUNCE, self._post_draft)

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        event.stop()

    def _post_draft(self) -> None:
        self._draft_timer = None
        self.post_message(self.DraftChanged(self.input.text))

    def _update_completions(self) -> None:
        area = self.input
        row, column = area.cursor_location
        before = area.document.get_line(row)[:column]
        self.menu.show(self.completer.complete(before, first_line=row == 0))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.menu.completions):
            self.input.accept(self.menu.completions[event.option_index])
            self.input.focus()
