"""Which pane has the keyboard on the workspace screen (one column at a time when narrow).
Typing is never lost: esc on a pane gives the keyboard back to the prompt (when nothing
runs: while a turn runs, esc interrupts it first), and a printable key typed on a pane that
has no use for it goes to the prompt. A pane's own keys always win."""

from __future__ import annotations

from textual import events
from textual.screen import Screen
from textual.widget import Widget

from swetui.ui.widgets.prompt import PromptInput


def within(widget: Widget, ancestor: Widget) -> bool:
    """`widget` is `ancestor` or inside it."""
    return any(node is ancestor for node in widget.ancestors_with_self)


def show_side(body: Widget, side_panes: tuple[Widget, ...], pane: Widget | None) -> None:
    """One column at a time on a narrow terminal: `pane` of the right column, or (None)
    the transcript. (Wide, both show; the classes only matter under `-single`.)"""
    body.set_class(pane is not None, "-side")
    if pane is not None:
        for other in side_panes:
            other.set_class(other is not pane, "-offstage")


def route_to_prompt(screen: Screen[None], prompt: PromptInput, event: events.Key) -> None:
    """Called with each key that reached the screen, before the focused pane's bindings."""
    focused = screen.focused
    if focused is None or within(focused, prompt):
        return
    bound = screen.active_bindings.get(event.key)
    if bound is not None and bound.enabled:
        return  # the pane (or the app) has a use for it
    if event.key == "escape":
        prompt.focus()
    elif event.is_printable and event.character:
        prompt.focus()
        prompt.insert(event.character)
    else:
        return
    event.stop()
    event.prevent_default()
