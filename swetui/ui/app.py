"""The swetui app: themes, the command palette, the workspace screen, and `run_workspace`."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.theme import Theme
from textual.widgets import Input, TextArea

from swetui.agent import (
    AgentSession,
    Session,
)
from swetui.config import ConfigError
from swetui.engine.workspace import WorkspaceError
from swetui.interrupts import EXIT_INTERRUPTED, CtrlC, close_loop, event_loop
from swetui.options import LaunchOptions
from swetui.providers import ProviderConfigError
from swetui.text import one_line, terminal_safe
from swetui.ui.control_filter import CONTROL_FILTER
from swetui.ui.palette import PROVIDERS
from swetui.ui.screens.main import WorkspaceScreen
from swetui.ui.theme_choice import chosen_theme, remember_theme
from swetui.ui.themes import ThemeCatalog, load_themes

EXIT_OPEN_FAILED = 2


class SweTuiApp(App[int]):
    """A workspace session on one screen."""

    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "swetui"
    COMMANDS = App.COMMANDS | set(PROVIDERS)
    COMMAND_PALETTE_BINDING = "ctrl+p"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=True, priority=True),
                Binding("ctrl+c", "ctrl_c", "Interrupt, twice to quit", show=False,
                        priority=True)]

    def __init__(self, session: Session, *, options: LaunchOptions | None = None,
                 theme: str | None = None, watch: bool = True,
                 theme_dirs: list[Path] | None = None) -> None:
        super().__init__()
        self._ctrl_c = 0
        self.session = session
        self.options = options or LaunchOptions(path=Path(session.workspace.root))
        self.watch_files = watch
        self.catalog: ThemeCatalog = load_themes(theme_dirs)
        for registered in self.catalog.themes.values():
            self.register_theme(registered)
        wanted = theme or self.options.theme or chosen_theme() \
            or session.workspace.settings.theme
        name, self._theme_problem = self.catalog.pick(wanted)
        self.theme = name
        for builtin in list(self.available_themes):
            # One list everywhere (the palette, Textual's picker, --theme's message): ours.
            if builtin not in self.catalog.themes and builtin != name:
                self.unregister_theme(builtin)

    def on_mount(self) -> None:
        self.push_screen(WorkspaceScreen(self.session))
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        for problem in self.catalog.errors:
            self.notify(problem, title="Theme not loaded", severity="warning", timeout=10)
        if self._theme_problem:
            self.notify(self._theme_problem, title="Theme", severity="warning", timeout=10)
        if self.watch_files:
            self._watch_workspace()

    def _remember_theme(self, theme: Theme) -> None:
        """A theme chosen while running (the palette) is the one the next start uses."""
        self._write_theme_choice(theme.name)

    @work(thread=True, group="theme", exclusive=True, exit_on_error=False)
    def _write_theme_choice(self, name: str) -> None:
        try:
            remember_theme(name)
        except OSError as exc:
            self.call_from_thread(self.notify, f"The theme choice is not remembered: {exc}",
                                  severity="warning")

    @work(group="watch", exclusive=True, exit_on_error=False)
    async def _watch_workspace(self) -> None:
        """Follow file changes on disk."""
        await self.session.watch()

    def reopen(self, *, resume: str) -> None:
        """Close this session and open `resume` in its place (`/resume ID`)."""
        if self.session.busy:
            self.notify("The agent is working; esc interrupts it first.", severity="warning")
            return
        self._reopen(replace(self.options, resume=resume, continue_last=False))

    @work(group="session", exclusive=True, exit_on_error=False)
    async def _reopen(self, options: LaunchOptions) -> None:
        try:
            session = await _open_in_thread(options)
        except Exception as exc:
            self.notify(str(exc), title="Cannot resume", severity="error", timeout=10)
            return
        old, self.session, self.options = self.session, session, options
        await self.switch_screen(WorkspaceScreen(session))
        await _close(old)
        if self.watch_files:
            self._watch_workspace()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Notifications name files and quote errors: shown as plain text with control
        characters visible (a name like `[@click=…]` is not markup)."""
        super().notify(terminal_safe(message), title=one_line(title), severity=severity,
                       timeout=timeout, markup=False)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then `CONTROL_FILTER`: no control character from a widget's
        text is ever written to the terminal."""
        return [*super().get_line_filters(), CONTROL_FILTER]

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and event.key != "ctrl+c":
            self._ctrl_c = 0  # only two ctrl+c in a row quit
        await super().on_event(event)

    async def action_ctrl_c(self) -> None:
        """ctrl+c copies a selection in the prompt; otherwise the first one interrupts the
        agent and the second in a row quits, even while a tool's thread is stuck."""
        focused = self.focused
        if isinstance(focused, TextArea | Input) and focused.selected_text:
            focused.action_copy()
            return
        self._ctrl_c += 1
        if self._ctrl_c > 1:
            await self.action_quit()
            return
        interrupted = self.session.cancel() if self.session.busy else False
        self.notify("Press ctrl+c again to quit (ctrl+q quits at once).",
                    title="Interrupted" if interrupted else "Quit?", timeout=5)

    async def action_quit(self) -> None:
        await _close(self.session)
        self.exit(0)

    def interrupt_signal(self) -> None:
        """SIGINT from outside (`kill -INT`): close the session and quit."""
        self.run_worker(self.action_quit(), group="quit", exit_on_error=False)


async def _open_in_thread(options: LaunchOptions) -> Session:
    return await asyncio.to_thread(AgentSession.open, options)


async def _close(session: Session) -> None:
    try:
        await session.aclose()
    except Exception:  # closing must never stop the app from quitting
        pass


def open_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that mean "cannot open": shown as one line, exit code 2."""
    return (ConfigError, WorkspaceError, ProviderConfigError, OSError, ValueError)


def run_workspace(options: LaunchOptions) -> int:
    """`swetui [PATH]`: open the session, run the full-screen app, return the exit code."""
    options = replace(options, origin="screen")
    try:
        session = AgentSession.open(options)
    except open_errors() as exc:
        print(f"swetui: {exc}", file=sys.stderr)
        return EXIT_OPEN_FAILED
    app = SweTuiApp(session, options=options, watch=options.watch)
    loop = event_loop()
    # A raw-mode terminal sends ctrl+c as a key; a SIGINT comes from outside.
    ctrl_c = CtrlC(lambda: loop.call_soon_threadsafe(app.interrupt_signal))
    try:
        with ctrl_c.installed():
            result = app.run(loop=loop)
    finally:
        close_loop(loop)
    if ctrl_c.count:
        return EXIT_INTERRUPTED
    return int(result or 0) if app.return_code in (None, 0) else app.return_code or 1
