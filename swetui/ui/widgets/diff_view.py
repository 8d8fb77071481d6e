"""A syntax-highlighted unified diff, hunk by hunk, with a current hunk and rejected hunks.

The code is highlighted from the whole old and new files (so strings and comments that span
lines colour right), then each diff line takes its highlighted line by number. Each hunk is
its own widget, so moving between hunks scrolls to it and marks it with CSS classes alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from swetui.agent import (
    NO_NEWLINE,
    Hunk,
)
from swetui.text import terminal_safe

HIGHLIGHT_LIMIT = 400_000
"""Characters above which a file is shown without syntax colours (they would stall the UI)."""

ADDED = Style(bgcolor="#1f3d24")
REMOVED = Style(bgcolor="#4a1f23")


def syntax_theme(dark: bool) -> str:
    """The Pygments theme that suits the app's theme."""
    return "monokai" if dark else "default"


def highlight_lines(text: str | None, path: str | None, theme: str) -> list[Text]:
    """Each line of `text` highlighted as the language its path suggests."""
    if not text:
        return []
    text = terminal_safe(text)  # a diff is read, never obeyed: control characters are shown
    lines = text.split("\n")
    if len(text) > HIGHLIGHT_LIMIT or not path:
        return [Text(line) for line in lines]
    lexer = Syntax.guess_lexer(path, text[:4_000])
    if lexer == "default":
        return [Text(line) for line in lines]
    syntax = Syntax(text, lexer, theme=theme)
    highlighted = _foreground_only(syntax.highlight(text))
    return list(highlighted.split("\n", allow_blank=True))


def _foreground_only(text: Text) -> Text:
    """The text with the theme's background removed, so the diff's own colours show."""
    spans = []
    for span in text.spans:
        style = Style.parse(span.style) if isinstance(span.style, str) else span.style
        spans.append(span._replace(style=Style(color=style.color, bold=style.bold,
                                               italic=style.italic,
                                               underline=style.underline)))
    text.spans = spans
    text.style = ""
    return text


def render_hunk(hunk: Hunk, old: list[Text], new: list[Text], *, accepted: bool) -> Text:
    """A hunk: its header (with whether it will be applied) and its coloured lines."""
    mark = "✓" if accepted else "✗ rejected"
    text = Text(no_wrap=True, end="")
    text.append(f"{hunk.header}", Style(color="cyan", dim=not accepted))
    text.append(f"  {mark}  +{hunk.added} −{hunk.removed}\n",
                Style(color="green" if accepted else "red", bold=True))
    old_no, new_no = hunk.old_start - 1, hunk.new_start - 1  # 0-based line indexes
    width = max((len(line) for line in hunk.lines), default=0) + 1
    for line in hunk.lines:
        prefix, body = line[:1], line[1:]
        if line == NO_NEWLINE:
            text.append(line + "\n", Style(dim=True, italic=True))
            continue
        if prefix == "+":
            code = _line(new, new_no, body)
            new_no += 1
            row = Text("+", Style(color="green", bold=True)) + code
            row.pad_right(max(0, width - row.cell_len))
            row.stylize(ADDED)
        elif prefix == "-":
            code = _line(old, old_no, body)
            old_no += 1
            row = Text("-", Style(color="red", bold=True)) + code
            row.pad_right(max(0, width - row.cell_len))
            row.stylize(REMOVED)
        else:
            code = _line(old, old_no, body)
            old_no += 1
            new_no += 1
            row = Text(" ") + code
        if not accepted:
            row.stylize(Style(dim=True))
        text.append_text(row)
        text.append("\n")
    text.rstrip()
    return text


def _line(lines: list[Text], index: int, fallback: str) -> Text:
    # The highlighted line when it matches the diff's text, else the diff's own text.
    if 0 <= index < len(lines) and lines[index].plain == fallback:
        return lines[index].copy()
    return Text(fallback)


class HunkView(Static):
    """One hunk of the diff."""


class DiffView(VerticalScroll, can_focus=False):
    """The hunks of one edit: `current` is highlighted, `rejected` ones are dimmed."""

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
        & > .diff-file { color: $text-muted; text-style: bold; }
        & > HunkView {
            border-left: blank;
            padding: 0 0 0 0;
            margin: 0 0 1 0;
            width: auto;
            min-width: 100%;
        }
        & > HunkView.-current { border-left: thick $accent; }
        & > HunkView.-rejected { opacity: 70%; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.hunks: list[Hunk] = []
        self.current = 0
        self.rejected: set[int] = set()
        self._old: list[Text] = []
        self._new: list[Text] = []
        self._title = ""
        self._views: list[HunkView] = []

    def compose(self) -> ComposeResult:
        yield Static("", classes="diff-file")

    def show(self, title: str, hunks: Iterable[Hunk], old: str | None, new: str | None,
             path: str | None, *, current: int = 0, rejected: Iterable[int] = ()) -> None:
        """Show a new diff (replaces what was there)."""
        theme = syntax_theme(self.app.current_theme.dark)
        self.hunks = list(hunks)
        self._old = highlight_lines(old, path, theme)
        self._new = highlight_lines(new, path, theme)
        self._title = title
        self.rejected = set(rejected)
        self.current = min(current, max(0, len(self.hunks) - 1))
        old_views = self._views
        self._views = [self._hunk_widget(hunk) for hunk in self.hunks]
        for view in old_views:
            view.remove()
        self.query_one(".diff-file", Static).update(Text(title, no_wrap=True,
                                                         overflow="ellipsis"))
        self.mount_all(self._views)
        self.scroll_home(animate=False)

    def _hunk_widget(self, hunk: Hunk) -> HunkView:
        accepted = hunk.index not in self.rejected
        view = HunkView(render_hunk(hunk, self._old, self._new, accepted=accepted))
        view.set_class(hunk.index == self.current, "-current")
        view.set_class(not accepted, "-rejected")
        return view

    def go(self, step: int) -> None:
        """Move the current hunk by `step` and scroll to it."""
        if not self.hunks:
            return
        self.current = max(0, min(len(self.hunks) - 1, self.current + step))
        for view, hunk in zip(self._views, self.hunks, strict=False):
            view.set_class(hunk.index == self.current, "-current")
            if hunk.index == self.current:
                self.scroll_to_widget(view, animate=False, top=True)

    def toggle_current(self) -> int | None:
        """Accept or reject the current hunk; returns its index."""
        if not self.hunks:
            return None
        hunk = self.hunks[self.current]
        self.rejected ^= {hunk.index}
        accepted = hunk.index not in self.rejected
        view = self._views[self.current]
        view.update(render_hunk(hunk, self._old, self._new, accepted=accepted))
        view.set_class(not accepted, "-rejected")
        return hunk.index
