"""Slash commands of the prompt (DESIGN §7): parsing, help and what each one does.

Each command answers in the transcript, in place; a failure is shown there, never raised.
"""

from __future__ import annotations

import inspect
import io
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App

from swetui.agent import MemoryExists, ModelChange, Session
from swetui.engine.project_memory import Cancelled
from swetui.engine.sources import MEMORY_MAX_BYTES, read_text_file
from swetui.files import read_error
from swetui.text import one_line, terminal_safe
from swetui.ui.compaction_preview import CompactionPreview, compact_after_preview
from swetui.ui.context_table import context_table
from swetui.ui.mcp_command import run_mcp
from swetui.ui.widgets.inspector_render import STATE_HELP
from swetui.ui.widgets.status import TurnStatus, format_tokens
from swetui.ui.widgets.token_figures import LEGEND, used_figure
from swetui.ui.widgets.transcript import Transcript

MODES = ("ask", "auto-edit", "auto")


@dataclass(frozen=True)
class SlashCommand:
    name: str
    hint: str
    help: str


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("compact", "[how]", "preview a compaction (optionally: what to keep); "
                 "enter commits"),
    SlashCommand("context", "", "what the next request contains, per layer"),
    SlashCommand("init", "[replace]", "write SWETUI.md, the project memory (esc cancels)"),
    SlashCommand("notes", "", "show the session notes"),
    SlashCommand("handoff", "", "end this chunk now: write the handoff, carry on from it"),
    SlashCommand("stats", "", "tokens, turns and timings of this session"),
    SlashCommand("mode", "[ask|auto-edit|auto]", "show or set the approval mode"),
    SlashCommand("model", "[provider:model]", "show or set the model"),
    SlashCommand("undo", "[compaction]", "undo the last applied edit (or compaction)"),
    SlashCommand("clear", "", "clear the transcript view (the context stays)"),
    SlashCommand("resume", "[id]", "list sessions, or reopen one"),
    SlashCommand("rules", "[remove N]", "remembered approval rules; remove one"),
    SlashCommand("trust", "", "review and trust the settings the workspace ships"),
    SlashCommand("mcp", "[restart|drop|restore|log NAME]",
                 "MCP servers: state, tools, tokens; restart, drop, read the log"),
    SlashCommand("help", "", "commands and keys"),
)
BY_NAME = {command.name: command for command in COMMANDS}

KEYS_HELP = (
    ("enter / ctrl+j", "send / new line"),
    ("↑ ↓", "prompt history (at the first / last line)"),
    ("tab / shift+tab", "next / previous pane"),
    ("F2 F3 F4 F5 F6", "transcript, gauge, inspector, approvals, prompt"),
    ("F7", "show / hide the right column (narrow: transcript ⇄ side pane)"),
    ("F8", "maximise the focused pane / restore"),
    ("esc", "interrupt the turn"),
    ("ctrl+p", "command palette: every action, themes, modes"),
    ("ctrl+q", "quit"),
)


STAT_LABELS = {
    "persisted": "saved to disk", "measured": "last request (measured)",
    "usage_measured": "usage measured (not estimated)", "calibration": "calibration",
    "next_request": "next request (as the model counts)",
    "estimate": "next request (swetui's count)", "limit": "window",
    "input_tokens": "sent (↑, all requests)",
}
"""/stats labels where the field's name would not say it to a person."""


def stat_value(value: object) -> str:
    """A /stats figure as a person reads it: 1,234; yes or no; — for none."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    return f"{value:,}" if isinstance(value, int) else str(value)


UNRECORDED = frozenset({"help", "clear", "resume"})
"""Commands whose answer is not kept for a resumed session: the same for every session, or
about the transcript itself."""


def plain_text(content: RenderableType, width: int = 80) -> str:
    """What a notice reads as, without colours (tables laid out at `width` columns)."""
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True,
                      legacy_windows=False)
    console.print(content)
    return console.export_text(styles=False).rstrip()


def parse(text: str) -> tuple[str, str]:
    """`/compact keep the API` → ('compact', 'keep the API')."""
    name, _, argument = text[1:].strip().partition(" ")
    return name.lower(), argument.strip()


def completion_entries() -> list[tuple[str, str, str]]:
    return [(command.name, command.hint, command.help) for command in COMMANDS]


class CommandHost(Protocol):
    """What the slash commands act on: the workspace screen, seen only through what they
    use (so this module does not import the screen that imports it)."""

    session: Session
    transcript: Transcript
    status: TurnStatus

    @property
    def app(self) -> App[None]: ...

    def set_mode(self, mode: str) -> None: ...

    def set_model(self, spec: str) -> None: ...

    def review_trust(self, asked: bool = False) -> object: ...


class SlashCommands:
    """Runs a slash command against the screen's session and transcript."""

    def __init__(self, screen: CommandHost) -> None:
        self.screen = screen
        self._said: list[str] = []
        """What the running command has said, as text (recorded when it ends)."""
        self.model_asked: str | None = None
        """A model switch whose price was shown: the same `/model` again makes it."""
        self.handlers: dict[str, Callable[[str], Awaitable[None] | None]] = {
            "compact": self.cmd_compact, "context": self.cmd_context, "init": self.cmd_init,
            "handoff": self.cmd_handoff, "notes": self.cmd_notes, "stats": self.cmd_stats,
            "mode": self.cmd_mode,
            "model": self.cmd_model, "undo": self.cmd_undo, "clear": self.cmd_clear,
            "resume": self.cmd_resume, "rules": self.cmd_rules, "trust": self.cmd_trust,
            "mcp": self.cmd_mcp, "help": self.cmd_help,
        }
        """What each command in `COMMANDS` runs, by name."""

    @property
    def session(self) -> Session:
        return self.screen.session

    def say(self, content: RenderableType, kind: str = "info") -> None:
        """A notice in the transcript; a plain string is text (never markup), with control
        characters made visible."""
        if isinstance(content, str):
            content = Text(terminal_safe(content))
        self.screen.transcript.notice(content, kind)
        self._said.append(plain_text(content))

    def markdown(self, text: str) -> None:
        """A block of Markdown in the transcript (kept as its text for a resumed session)."""
        self.screen.transcript.markdown(text)
        self._said.append(text)

    async def run(self, text: str) -> None:
        self._said = []
        try:
            await self._run(text)
        finally:
            name = parse(text)[0]
            if self._said and name not in UNRECORDED:
                # Kept in the log (redacted like every line) for a resumed transcript.
                self.session.workspace.record("command_shown", {
                    "turn": self.session.engine.turn, "command": text,
                    "output": "\n".join(self._said)})

    async def _run(self, text: str) -> None:
        name, argument = parse(text)
        handler = self.handlers.get(name)
        if name not in BY_NAME or handler is None:
            close = [c.name for c in COMMANDS if c.name.startswith(name[:2])] if name else []
            hint = f" Did you mean /{close[0]}?" if close else ""
            self.screen.transcript.error(f"Unknown command /{name}.{hint} /help lists them.")
            return
        try:
            result = handler(argument)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # a command failure is shown in place, never a crash
            self.screen.transcript.error(f"/{name}: {exc}")

    async def cmd_compact(self, argument: str) -> None:
        outcome = await compact_after_preview(self.screen.app, self.session, trigger="manual",
                                              instructions=argument or None)
        if outcome == "cancelled":
            self.say(CompactionPreview.CANCELLED)

    def cmd_context(self, _: str) -> None:
        engine = self.session.engine
        budget = engine.budget()
        self.say(context_table(budget))
        self.say(Text(f"{len(engine)} items · threshold {budget.threshold:.0%} · the inspector "
                      "(F4) lists them; its 'what is sent' view shows the exact request",
                      style="dim"))

    async def cmd_init(self, argument: str) -> None:
        if argument not in ("", "replace"):
            raise ValueError("use /init, or /init replace to write a new SWETUI.md")
        status = self.screen.status
        status.start("Writing SWETUI.md… (esc cancels)")
        try:
            outcome = await self.session.init_memory(
                replace=argument == "replace",
                progress=lambda message: setattr(status, "activity", f"{message} (esc cancels)"))
        except MemoryExists:
            self.say("SWETUI.md exists and is kept: /init replace writes a new one.")
            return
        except Cancelled:
            self.say("/init cancelled: SWETUI.md was not written.")
            return
        finally:
            status.stop()
        self.say(f"✓ Wrote {outcome.path.name} ({outcome.tokens:,} tokens, from "
                 f"{outcome.written_by}); it is in the memory layer")
        if outcome.note:
            self.say(f"! {outcome.note}", "warning")

    def cmd_handoff(self, _: str) -> None:
        # The boundary itself shows in the transcript (its SessionLimit event).
        self.session.handoff()

    def cmd_notes(self, _: str) -> None:
        path = Path(self.session.notes_path)
        try:
            loaded = read_text_file(path, MEMORY_MAX_BYTES)
        except FileNotFoundError:
            loaded = None
        except OSError as exc:
            self.say(read_error(str(path), exc))
            return
        text = loaded.text.strip() if loaded is not None else ""
        if not text:
            self.say(f"No session notes yet ({path}).")
            return
        self.markdown(f"**Session notes** — `{path}`\n\n{text[:20_000]}")

    def cmd_stats(self, _: str) -> None:
        table = Table(title="Session", title_justify="left", box=None, padding=(0, 1))
        table.add_column("")
        table.add_column("", justify="right")
        for key, value in self.session.stats().items():
            table.add_row(STAT_LABELS.get(key, key.replace("_", " ")),
                          Text(one_line(stat_value(value))))
        self.say(table)

    def cmd_mode(self, argument: str) -> None:
        if not argument:
            others = " · ".join(mode for mode in MODES if mode != self.session.mode)
            self.say(f"Mode: {self.session.mode} (others: {others}; /mode NAME switches)")
            return
        if argument not in MODES:
            raise ValueError(f"unknown mode {argument!r}; choose ask, auto-edit or auto")
        self.screen.set_mode(argument)

    async def cmd_model(self, argument: str) -> None:
        if argument and not argument.endswith(":"):
            asked, self.model_asked = self.model_asked, None
            if argument != self.session.model and argument != asked:
                # The price first: what the switch turns from cached into fresh.
                price = self.session.price_change(ModelChange(argument))
                if price.effect.uncached:
                    self.model_asked = argument
                    self.say(f"{price.line()}. /model {argument} again to switch.", "warning")
                    return
            self.screen.set_model(argument)
            return
        if not argument:
            self.say(f"Model: {self.session.model} (/model provider:model switches, "
                     "e.g. /model offline)")
        names = await self.session.available_models(argument or None)
        provider = (argument or self.session.model).partition(":")[0]
        if names:
            shown = ", ".join(names[:20]) + (" …" if len(names) > 20 else "")
            self.say(f"The {provider} server offers: {shown} (/model {provider}:NAME "
                     "switches)")
        elif argument:
            self.say(f"The {provider} server did not list any model.")

    def cmd_undo(self, argument: str) -> None:
        if argument.startswith("comp"):
            self.say(f"↺ {self.session.undo_compaction()}")
        elif argument:
            raise ValueError("use /undo or /undo compaction")
        else:
            self.say(f"↺ {self.session.undo_edit()}")

    def cmd_rules(self, argument: str) -> None:
        if argument:
            words = argument.split()
            if len(words) != 2 or words[0] != "remove" or not words[1].isdigit():
                raise ValueError("use /rules or /rules remove N")
            self.say(f"✓ {self.session.remove_rule(int(words[1]))}")
            return
        rules = self.session.rules()
        if not rules:
            self.say("No remembered approval rules. Approve with s (session) or w "
                     "(workspace) in the approval queue to remember one.")
            return
        table = Table(title="Remembered approval rules", title_justify="left", box=None,
                      padding=(0, 1))
        for column in ("#", "scope", "rule", "matches"):
            table.add_column(column)
        for number, (scope, rule) in enumerate(rules, 1):
            table.add_row(str(number), scope, rule.action,
                          Text(one_line(f"{rule.kind} {rule.pattern}")))
        self.say(table)
        self.say(Text("Protected paths and dangerous commands always ask. "
                      "/rules remove N forgets one.", style="dim"))

    async def cmd_mcp(self, argument: str) -> None:
        await run_mcp(self.session, argument, self.say)

    def cmd_trust(self, _: str) -> None:
        self.screen.review_trust(asked=True)

    def cmd_clear(self, _: str) -> None:
        self.screen.transcript.clear()
        self.say(Text("Transcript cleared; the context is unchanged (/context shows it).",
                      style="dim"))

    def cmd_resume(self, argument: str) -> None:
        if argument:
            reopen = getattr(self.screen.app, "reopen", None)
            if reopen is None:
                raise ValueError("this app cannot reopen sessions")
            reopen(resume=argument)
            return
        sessions = list(self.session.sessions())
        if not sessions:
            self.say("No saved sessions in this workspace yet.")
            return
        table = Table(title="Sessions (/resume ID reopens one)", title_justify="left",
                      box=None, padding=(0, 1))
        table.add_column("id")
        table.add_column("details", overflow="ellipsis")
        for entry in sessions[:20]:
            table.add_row(Text(one_line(entry.session_id)), Text(one_line(entry.title)))
        self.say(table)

    def cmd_help(self, _: str) -> None:
        commands = [(f"/{command.name} {command.hint}".rstrip(), command.help)
                    for command in COMMANDS]
        self.say(two_columns("Commands", "command", commands))
        self.say(two_columns("Keys", "key", KEYS_HELP))
        self.say(two_columns("Budget figures (the gauge, F3; ? there says the same)",
                             "figure", LEGEND))
        words = " · ".join(word for word, _ in STATE_HELP)
        self.say(Text(f"Context item states and marks: {words}. ? in the inspector (F4) says "
                      "what each means.", style="dim"))
        budget = self.session.engine.budget()
        self.say(Text("Type @ to add a workspace file to the context. The next request: "
                      f"{used_figure(budget)} of {format_tokens(budget.limit)} tokens.",
                      style="dim"))


def two_columns(title: str, heading: str, rows: Iterable[tuple[str, str]]) -> Table:
    """A borderless table of names (bold) and what each one is."""
    table = Table(title=title, title_justify="left", box=None, padding=(0, 1))
    table.add_column(heading, style="bold")
    table.add_column("")
    for name, what in rows:
        table.add_row(name, what)
    return table
