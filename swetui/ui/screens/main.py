"""The workspace screen: transcript and prompt on the left, gauge, inspector and approval
queue on the right, a header and a footer with the keys of the focused pane."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from swetui.agent import (
    AgentEvent,
    AnswerChunk,
    ApprovalCancelled,
    ApprovalDecided,
    ApprovalRequested,
    McpServersChanged,
    ModeChanged,
    ModelCallStarted,
    Session,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from swetui.engine.events import BudgetChanged, ItemsChanged
from swetui.ui.bridge import EventBridge, SessionEvent, StreamText
from swetui.ui.commands import MODES, SlashCommands, completion_entries
from swetui.ui.compaction_preview import CompactionPreview, compact_after_preview
from swetui.ui.mentions import add_mentioned_paths
from swetui.ui.screens.approval_lines import action_id_of, decision_line
from swetui.ui.screens.layout import size_classes, too_small_hint
from swetui.ui.screens.modals import open_modal
from swetui.ui.screens.pane_focus import route_to_prompt, show_side, within
from swetui.ui.screens.spending_question import ask_on
from swetui.ui.screens.trust_review import review_workspace_trust
from swetui.ui.widgets import ApprovalQueuePane, BudgetGauge, ContextInspector
from swetui.ui.widgets.change_price_line import ChangePriceLine
from swetui.ui.widgets.header import WorkspaceHeader, short_path
from swetui.ui.widgets.modal_requests import ModalRequest
from swetui.ui.widgets.prompt import PromptBar, PromptInput
from swetui.ui.widgets.prompt_complete import Completer, list_workspace_files
from swetui.ui.widgets.status import TurnStatus
from swetui.ui.widgets.transcript import Transcript
from swetui.ui.widgets.transcript_entries import TOOL_VERBS

WELCOME = Text.assemble(("swetui", "bold"), " · type a request below and press enter · ",
                        ("/", "bold"), " commands · ", ("@", "bold"), " add a file · ",
                        ("F1", "bold"), " help · ", ("ctrl+p", "bold"), " every action")
PANES = ("transcript", "gauge", "inspector", "approvals", "prompt-input")


class WorkspaceScreen(Screen[None]):
    """The one screen of a workspace session."""

    CSS_PATH = Path(__file__).with_name("main.tcss")
    AUTO_FOCUS = "#prompt-input"

    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", priority=True, show=False),
        Binding("f1", "help", "Help", show=False, priority=True),
        Binding("f2,alt+1", "focus_pane('transcript')", "Transcript", show=False, priority=True),
        Binding("f3,alt+2", "focus_pane('gauge')", "Gauge", show=False, priority=True),
        Binding("f4,alt+3", "focus_pane('inspector')", "Context", show=False, priority=True),
        Binding("f5,alt+4", "focus_pane('approvals')", "Approvals", show=False, priority=True),
        Binding("f6,alt+5", "focus_pane('prompt-input')", "Prompt", show=False, priority=True),
        Binding("f7", "toggle_sidebar", "Side panes", show=False, priority=True),
        Binding("f8", "toggle_maximize", "Maximize", show=False, priority=True),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.bridge = EventBridge(self)
        self.commands = SlashCommands(self)
        root = session.workspace.root
        self.transcript = Transcript(id="transcript")
        self.status = TurnStatus(id="turn-status")
        self.header = WorkspaceHeader(id="header")
        self.completer = Completer(completion_entries(), {
            "mode": lambda: MODES,
            "undo": lambda: ("compaction",),
            "resume": self._session_ids,
        })
        self.prompt = PromptBar(self.completer, id="prompt")
        self.gauge = BudgetGauge(session.engine, id="gauge")
        self.gauge.can_focus = True  # every pane is reachable by keyboard (and F8 maximises)
        self.inspector = ContextInspector(session.engine, id="inspector", root=root)
        self.change_price = ChangePriceLine(self.inspector, session.price_change,
                                            id="change-price")
        self.approvals = ApprovalQueuePane(session.queue, id="approvals", root=root)

    def compose(self) -> ComposeResult:
        yield self.header
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield self.transcript
                yield self.status
            with Vertical(id="sidebar"):
                yield self.gauge
                yield self.inspector
                yield self.change_price
                yield self.approvals
        yield self.prompt
        yield Footer(id="footer", compact=True)
        yield Static("", id="too-small")

    def on_mount(self) -> None:
        self.transcript.border_title = "Transcript"
        self.gauge.border_title = "Budget"
        self.inspector.border_title = "Context"
        header = self.header
        header.workspace = short_path(self.session.workspace.root)
        header.model = self.session.model
        header.mode = self.session.mode
        self.bridge.attach(self.session.bus)
        self.transcript.notice(WELCOME, "welcome")
        self.transcript.replay(self.session.transcript())
        for notice in self.session.notices:
            # Text, not markup: a notice can quote what a repository wrote.
            self.transcript.notice(Text(f"! {notice}"), "warning")
        self._update_pending()
        self.session.spending.ask = ask_on(self.app)  # a call past the cap asks first
        self.call_after_refresh(self._start_session)  # never before the first frame
        self._index_files()
        self._check_sandbox()
        self._check_size(self.size.width, self.size.height)
        self.review_trust()

    def _start_session(self) -> None:
        self.session.start()  # the symbol map's build, prices; then the MCP servers
        self.session.start_servers()

    def on_unmount(self) -> None:
        self.bridge.detach()

    # -- session events --------------------------------------------------------------------

    def on_stream_text(self, message: StreamText) -> None:
        self.transcript.stream(message.turn, message.kind, message.text)
        if message.kind == "answer":
            self.status.activity = "Responding…"

    def on_session_event(self, message: SessionEvent) -> None:
        event = message.event
        match event:
            case BudgetChanged(budget=budget):
                self.gauge.show(budget)
            case ItemsChanged(ids=ids):
                self.inspector.items_changed(ids)
                self.gauge.items_changed()
            case ApprovalRequested() | ApprovalDecided() | ApprovalCancelled():
                self.approvals.sync()
                self._update_pending()
                self.transcript.approval(action_id_of(event), decision_line(event),
                                         waiting=isinstance(event, ApprovalRequested))
                if isinstance(event, ApprovalRequested) and self.status.running:
                    self.status.activity = "Waiting for your approval (F5)…"
            case ModeChanged(mode=mode):
                self.header.mode = mode
            case McpServersChanged(servers=servers):
                self.gauge.show_servers(servers)
                if event.message:
                    self.transcript.notice(Text(f"! {event.message}"), "warning")
            case _:
                self.transcript.show_event(event)
                self._follow_status(event)

    def _follow_status(self, event: AgentEvent) -> None:
        status = self.status
        match event:
            case TurnStarted():
                status.start("Thinking…")
                self.header.busy = True
            case ModelCallStarted():
                status.activity = "Thinking…"
            case ToolCallStarted():
                status.activity = f"{TOOL_VERBS.get(event.name, event.name)}…"
            case ToolCallFinished() | AnswerChunk():
                status.activity = "Thinking…"
            case TurnFinished():
                self.gauge.turn_finished(event)
                status.stop()
                self.header.busy = False

    def _update_pending(self) -> None:
        self.header.pending = len(self.session.queue.pending())
        self.query_one("#sidebar").set_class(self.header.pending > 0, "-pending")

    def on_approval_queue_pane_count_changed(self, message: ApprovalQueuePane.CountChanged) -> None:
        self.header.pending = message.count
        self.query_one("#sidebar").set_class(message.count > 0, "-pending")
        if message.count == 0 and self.focused is not None \
                and self._within(self.focused, self.approvals):
            self.prompt.input.focus()  # nothing left to decide: back to the prompt

    def on_workspace_header_badge_clicked(self) -> None:
        self.action_focus_pane("approvals")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        approving = self._within(event.widget, self.approvals)
        self.header.show_badge = not approving
        self.query_one("#sidebar").set_class(approving, "-approving")
        side = [pane for pane in (self.gauge, self.inspector, self.approvals)
                if self._within(event.widget, pane)]
        if side or not self._within(event.widget, self.query_one("#sidebar")):
            self._show_side(side[0] if side else None)

    def _show_side(self, pane: Widget | None) -> None:
        show_side(self.query_one("#body"), (self.gauge, self.inspector, self.approvals), pane)

    _within = staticmethod(within)

    def on_key(self, event: events.Key) -> None:
        route_to_prompt(self, self.prompt.input, event)

    # -- the prompt --------------------------------------------------------------------------

    @on(PromptInput.Submitted)
    def _submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        self.session.engine.set_draft("")
        if text.startswith("/"):
            self.transcript.notice(Text(f"› {text}", style="bold"), "command")
            self._run_command(text)
            return
        rest = add_mentioned_paths(self.session, text, self.transcript)
        if not rest.strip():
            return
        if self.session.busy:
            self.transcript.error("The agent is still working; press esc to interrupt it first.")
            self.prompt.input.load_text(text)
            return
        self._send(text)

    def on_prompt_bar_draft_changed(self, message: PromptBar.DraftChanged) -> None:
        self.session.engine.set_draft(message.text)

    @work(group="turn", exit_on_error=False)
    async def _send(self, text: str) -> None:
        try:
            await self.session.send(text)
        except Exception as exc:  # shown in place; the session carries on
            self.status.stop()
            self.header.busy = False
            self.transcript.error(f"{type(exc).__name__}: {exc}")

    @work(group="command", exit_on_error=False)
    async def _run_command(self, text: str) -> None:
        await self.commands.run(text)
        self.header.mode = self.session.mode
        self.header.model = self.session.model

    @work(thread=True, group="sandbox", exclusive=True, exit_on_error=False)
    def _check_sandbox(self) -> None:
        notice = self.session.sandbox_notice()
        if notice:
            self.app.call_from_thread(self._sandbox_off, notice)

    def _sandbox_off(self, notice: str) -> None:
        self.header.sandbox_off = notice
        self.header.tooltip = notice
        self.transcript.notice(f"! {notice}", "warning")

    @work(thread=True, group="files", exclusive=True, exit_on_error=False)
    def _index_files(self) -> None:
        files = list_workspace_files(self.session.workspace.root)
        self.app.call_from_thread(setattr, self.completer, "files", files)

    def _session_ids(self) -> list[str]:
        return [entry.session_id for entry in self.session.sessions()]

    # -- actions (keys and palette) ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":
            return self.session.busy
        return True

    def action_interrupt(self) -> None:
        if self.session.cancel():
            self.status.activity = "Interrupting…"

    def action_help(self) -> None:
        self._run_command("/help")

    def action_focus_pane(self, pane: str) -> None:
        if pane != "prompt-input" and self.query_one("#sidebar").has_class("-hidden") \
                and pane in ("gauge", "inspector", "approvals"):
            self.query_one("#sidebar").remove_class("-hidden")
        target = self.query_one(f"#{pane}")
        if target in (self.gauge, self.inspector, self.approvals):
            self._show_side(target)  # shown before it is focused (a hidden pane cannot be)
        target.focus()

    def action_toggle_sidebar(self) -> None:
        if self.has_class("-single"):  # one column: F7 flips between the two
            body_side = self.query_one("#body").has_class("-side")
            (self.prompt.input if body_side else self.inspector).focus()
            return
        sidebar = self.query_one("#sidebar")
        sidebar.toggle_class("-hidden")
        focused = self.focused
        if sidebar.has_class("-hidden") and focused is not None \
                and self._within(focused, sidebar):
            self.prompt.input.focus()

    def action_toggle_maximize(self) -> None:
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            target = self.focused
            for pane in (self.transcript, self.gauge, self.inspector, self.approvals):
                if self._within(self.focused, pane):
                    target = pane
            if target in (self.transcript, self.gauge, self.inspector, self.approvals):
                # Every pane maximises, scroll containers too (Textual's own rule refuses).
                self.maximized = target
            else:
                self.maximize(target, container=False)

    def set_mode(self, mode: str) -> None:
        self.session.set_mode(mode)
        self.header.mode = self.session.mode
        self.transcript.notice(f"Mode: {self.session.mode}", "mode")

    def set_model(self, spec: str) -> None:
        self.session.set_model(spec)
        self.header.model = self.session.model
        self.transcript.notice(f"Model: {self.session.model}", "model")

    def run_slash(self, text: str) -> None:
        """Run a slash command as if typed (the palette uses this)."""
        self.transcript.notice(Text(f"› {text}", style="bold"), "command")
        self._run_command(text)

    @on(ModalRequest)
    def _open_modal(self, message: ModalRequest) -> None:
        """A pane asked for a modal (deny reason, editor, batch review, preview)."""
        message.stop()
        open_modal(self.app, message, self.session.price_change)

    @on(ContextInspector.CompactRequested)
    def _compact_selection(self, message: ContextInspector.CompactRequested) -> None:
        self._compact(list(message.item_ids))

    @work(group="compaction", exclusive=True, exit_on_error=False)
    async def _compact(self, item_ids: list[str]) -> None:
        try:
            # When nothing folds, the session itself says why (an EngineNotice).
            outcome = await compact_after_preview(self.app, self.session, trigger="selection",
                                                  item_ids=item_ids)
        except Exception as exc:
            self.transcript.error(f"compaction failed: {exc}")
            return
        if outcome == "cancelled":
            self.transcript.notice(CompactionPreview.CANCELLED, "compaction")
        elif outcome == "compacted":
            self.inspector.action_clear_selection()  # those items are folded now

    # -- trust of what the workspace ships ---------------------------------------------------

    @work(group="trust", exclusive=True, exit_on_error=False)
    async def review_trust(self, asked: bool = False) -> None:
        """Review and trust what the workspace ships (at start, and on /trust)."""
        launch_mode = getattr(getattr(self.app, "options", None), "mode", None)
        if await review_workspace_trust(self.app, Path(self.session.workspace.root),
                                        self.transcript.notice, asked=asked,
                                        mode=self.session.mode, launch_mode=launch_mode,
                                        set_mode=self.set_mode):
            started = await self.session.reload_mcp_servers()  # its servers start now
            if started:
                self.transcript.notice(started)

    # -- size --------------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        classes = size_classes(width, height)
        small, was_small = classes["-too-small"], self.has_class("-too-small")
        if small and not was_small:
            # Hiding the panes takes the focus away; give it back when the window grows.
            self._focus_before_small = self.focused
        for name, enabled in classes.items():
            self.set_class(enabled, name)
        if was_small and not small:
            previous = getattr(self, "_focus_before_small", None)
            target = previous if previous is not None and previous.is_attached \
                else self.prompt.input
            self.call_after_refresh(target.focus)
        if small:
            self.query_one("#too-small", Static).update(too_small_hint(width, height))
