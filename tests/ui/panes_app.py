"""A test app that hosts side panes alone, wired as `WorkspaceScreen` wires them: one
`EventBridge` on the bus, each event handed down by type, modals opened on request."""

from __future__ import annotations

from textual import on
from textual.app import App

from swetui.agent.events import ApprovalCancelled, ApprovalDecided, ApprovalRequested
from swetui.engine.bus import EventBus
from swetui.engine.events import BudgetChanged, ItemsChanged
from swetui.ui.bridge import EventBridge, SessionEvent
from swetui.ui.screens.modals import open_modal
from swetui.ui.widgets import ApprovalQueuePane, BudgetGauge, ContextInspector
from swetui.ui.widgets.modal_requests import ModalRequest


class PanesApp(App[None]):
    """Subclasses compose the panes; `bus` is what they follow."""

    def __init__(self, bus: EventBus) -> None:
        super().__init__()
        self.bus = bus
        self.bridge = EventBridge(self)

    def on_load(self) -> None:
        self.bridge.attach(self.bus)  # before any pane mounts, as the screen's start does

    def on_unmount(self) -> None:
        self.bridge.detach()

    def on_session_event(self, message: SessionEvent) -> None:
        match message.event:
            case BudgetChanged(budget=budget):
                for gauge in self.query(BudgetGauge):
                    gauge.show(budget)
            case ItemsChanged(ids=ids):
                for inspector in self.query(ContextInspector):
                    inspector.items_changed(ids)
                for gauge in self.query(BudgetGauge):
                    gauge.items_changed()
            case ApprovalRequested() | ApprovalDecided() | ApprovalCancelled():
                for pane in self.query(ApprovalQueuePane):
                    pane.sync()

    @on(ModalRequest)
    def _open_modal(self, message: ModalRequest) -> None:
        message.stop()
        open_modal(self, message)
