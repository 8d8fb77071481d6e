"""Command palette providers (ctrl+p): one per domain, so every action has a name to type.

The pane providers read the panes' own key bindings, so a key added to a pane shows up in
the palette without a second list to keep in step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.widget import Widget

from swetui.ui.commands import COMMANDS, MODES
from swetui.ui.screens.main import WorkspaceScreen

Command = tuple[str, Callable[[], Any], str]

NAVIGATION = frozenset({
    "cursor_up", "cursor_down", "page_up", "page_down", "first", "last", "scroll_home",
    "scroll_end", "scroll_up", "scroll_down", "extend_up", "extend_down", "cursor_left",
    "cursor_right", "scroll_left", "scroll_right", "page_left", "page_right",
})


class _Commands(Provider):
    """A provider over a list of (name, callback, help) built when the palette opens."""

    def workspace(self) -> WorkspaceScreen | None:
        screen = self.screen
        return screen if isinstance(screen, WorkspaceScreen) else None

    def commands(self) -> list[Command]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for name, callback, help_text in self.commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self.commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)


def _bindings_of(widget: Widget) -> Iterator[Binding]:
    seen: set[str] = set()
    for cls in type(widget).__mro__:
        for binding in cls.__dict__.get("BINDINGS", ()):
            if not isinstance(binding, Binding):
                continue
            name = binding.action.split("(")[0]
            if name in NAVIGATION or binding.action in seen:
                continue
            seen.add(binding.action)
            yield binding


def _key_label(binding: Binding) -> str:
    return binding.key_display or binding.key.split(",")[0]


async def _run_on(widget: Widget, action: str) -> None:
    widget.focus()
    await widget.run_action(action)


class _PaneCommands(_Commands):
    """Every key action of one pane, named after the pane."""

    pane_id = ""
    label = ""

    def commands(self) -> list[Command]:
        screen = self.workspace()
        if screen is None:
            return []
        widget = screen.query_one(f"#{self.pane_id}")
        return [(f"{self.label}: {binding.description or binding.action}",
                 partial(_run_on, widget, binding.action), f"key {_key_label(binding)}")
                for binding in _bindings_of(widget)]


class ContextCommands(_PaneCommands):
    """Context inspector: pin, drop, edit, preview, refresh, compact, what is sent..."""

    pane_id, label = "inspector", "Context"


class ApprovalCommands(_PaneCommands):
    """Approval queue: approve, deny, approve all, edit, hunks, remember..."""

    pane_id, label = "approvals", "Approvals"


class GaugeCommands(_PaneCommands):
    pane_id, label = "gauge", "Budget"


class TranscriptCommands(_PaneCommands):
    pane_id, label = "transcript", "Transcript"


class WorkspaceCommands(_Commands):
    """Slash commands, pane focus, the side column, interrupt."""

    def commands(self) -> list[Command]:
        screen = self.workspace()
        if screen is None:
            return []
        found: list[Command] = []
        for command in COMMANDS:
            text = f"/{command.name}"
            found.append((f"/{command.name}: {command.help}",
                          partial(screen.run_slash, text), f"type {text} {command.hint}".rstrip()))
        found.append(("Undo the last compaction", partial(screen.run_slash, "/undo compaction"),
                      "/undo compaction"))
        for pane, key in (("transcript", "F2"), ("gauge", "F3"), ("inspector", "F4"),
                          ("approvals", "F5"), ("prompt-input", "F6")):
            name = pane.replace("-input", "")
            found.append((f"Focus the {name}", partial(screen.action_focus_pane, pane),
                          f"key {key}"))
        found.append(("Show or hide the side panes", screen.action_toggle_sidebar, "key F7"))
        found.append(("Maximize or restore the focused pane", screen.action_toggle_maximize,
                      "key F8"))
        found.append(("Interrupt the agent", screen.action_interrupt, "key esc"))
        return found


class ModeCommands(_Commands):
    """Approval modes and the model."""

    def commands(self) -> list[Command]:
        screen = self.workspace()
        if screen is None:
            return []
        helps = {"ask": "every write and command waits for approval",
                 "auto-edit": "edits apply, commands wait",
                 "auto": "full autonomy, except protected actions"}
        found: list[Command] = [(f"Mode: {mode}", partial(screen.run_slash, f"/mode {mode}"),
                                 helps[mode]) for mode in MODES]
        found.append(("Model: offline", partial(screen.run_slash, "/model offline"),
                      "the embedded local responder (no network)"))
        return found


class McpCommands(_Commands):
    """Each MCP server: restart it, drop or restore its tools, read its stderr log."""

    def commands(self) -> list[Command]:
        screen = self.workspace()
        if screen is None:
            return []
        found: list[Command] = [("MCP servers: state, tools, tokens",
                                 partial(screen.run_slash, "/mcp"), "/mcp")]
        for status in screen.session.mcp_servers():
            name = status.name
            toggle = "restore" if status.dropped else "drop"
            found += [
                (f"MCP: restart {name}", partial(screen.run_slash, f"/mcp restart {name}"),
                 status.state),
                (f"MCP: {toggle} {name}'s tools", partial(screen.run_slash,
                                                          f"/mcp {toggle} {name}"),
                 f"saves {status.sent_tokens:,} tokens a request ({len(status.tools)} "
                 "tools)" if toggle == "drop" else f"{len(status.tools)} tools"),
                (f"MCP: stderr log of {name}", partial(screen.run_slash, f"/mcp log {name}"),
                 status.log_file or "kept in memory"),
            ]
        return found


class ThemeCommands(_Commands):
    """Every registered theme, bundled and the user's: found by typing (e.g. "theme"), not
    listed when the palette opens, so its commands come first."""

    async def discover(self) -> Hits:
        return
        yield

    def commands(self) -> list[Command]:
        app = self.app
        return [(f"Theme: {name}", partial(setattr, app, "theme", name),
                 "current" if name == app.theme else "")
                for name in sorted(app.available_themes)]


PROVIDERS = (WorkspaceCommands, ContextCommands, ApprovalCommands, GaugeCommands,
             TranscriptCommands, ModeCommands, McpCommands, ThemeCommands)
