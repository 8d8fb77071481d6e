"""The approval queue pane: every pending edit, write and command, with a preview of the
selected one and the keys to decide it.

The pane follows the queue's events (requested, decided, cancelled) and resolves actions
only through `ApprovalQueue.approve`/`deny`, whose futures the agent awaits. It posts
`CountChanged` when the number of pending actions changes (a badge in the header) and
`Decided` for each decision made here (a line in the transcript).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.events import (
    ApprovalCancelled,
    ApprovalDecided,
    ApprovalRequested,
    Decision,
    PendingAction,
)
from swetui.ui.widgets.approval_actions import ApprovalActions
from swetui.ui.widgets.approval_preview import KIND_ICONS, ActionPreview, action_title


class ApprovalQueuePane(ApprovalActions, Widget):
    """Pending actions, the selected one previewed; approve, deny, edit, pick hunks."""

    DEFAULT_CSS = """
    ApprovalQueuePane {
        height: 1fr;
        layout: vertical;
        & > #approvals-title { color: $text-accent; text-style: bold; padding: 0 1; }
        & > OptionList, & > OptionList:focus {
            height: auto;
            max-height: 7;
            border: none;
            padding: 0;
        }
        & > OptionList.-empty { height: 0; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "approve", "Approve"),
        Binding("n", "deny", "Deny"),
        Binding("Y,A", "approve_all", "Approve all"),
        Binding("E", "edit", "Edit+approve"),
        Binding("u", "approve_unconfined", "Run unconfined", show=False),
        Binding("s", "approve_session", "Allow session", show=False),
        Binding("w", "approve_workspace", "Allow always", show=False),
        Binding("space", "toggle_hunk", "Hunk on/off"),
        Binding("],j", "next_hunk", "Next hunk", show=False),
        Binding("[,k", "previous_hunk", "Previous hunk", show=False),
        Binding("b", "batch_review", "Batch review"),
    ]

    class CountChanged(Message):
        """The number of pending actions changed (for a badge)."""

        def __init__(self, count: int) -> None:
            super().__init__()
            self.count = count

    class Decided(Message):
        """The user decided `action` in this pane."""

        def __init__(self, action: PendingAction, decision: Decision) -> None:
            super().__init__()
            self.action = action
            self.decision = decision

    class _QueueChanged(Message):
        """The queue published an event (maybe from another thread)."""

    def __init__(self, queue: ApprovalQueue, *, id: str | None = None,  # noqa: A002
                 root: Path | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.queue = queue
        self.root = root
        self.actions: list[PendingAction] = []
        """The pending actions as listed (oldest first)."""
        self.rejected: dict[str, set[int]] = {}
        """Hunks the user rejected, per action id."""
        self._count: int | None = None
        self._unsubscribe: list[Callable[[], None]] = []

    def compose(self) -> ComposeResult:
        yield Static("Approvals", id="approvals-title")
        yield OptionList(id="approvals-list")
        yield ActionPreview(id="approvals-preview")

    @property
    def option_list(self) -> OptionList:
        return self.query_one(OptionList)

    @property
    def preview(self) -> ActionPreview:
        return self.query_one(ActionPreview)

    # -- queue bridge ----------------------------------------------------------------------

    def on_mount(self) -> None:
        for kind in (ApprovalRequested, ApprovalDecided, ApprovalCancelled):
            self._unsubscribe.append(self.queue.bus.subscribe(self._on_bus, kind))
        self.sync()

    def on_unmount(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    def _on_bus(self, event: Any) -> None:
        self.post_message(self._QueueChanged())  # thread-safe

    def _on_approval_queue_pane__queue_changed(self, message: _QueueChanged) -> None:
        message.stop()
        self.sync()

    def sync(self) -> None:
        """List the queue's pending actions, keeping the highlight on the same action."""
        current = self.selected_action
        actions = self.queue.pending()
        ids = [action.id for action in actions]
        self.rejected = {key: value for key, value in self.rejected.items() if key in ids}
        changed = ids != [action.id for action in self.actions]
        self.actions = actions
        option_list = self.option_list
        if changed:
            highlighted = option_list.highlighted or 0
            option_list.clear_options()
            option_list.add_options([self._option(action) for action in actions])
            if current is not None and current.id in ids:
                highlighted = ids.index(current.id)
            option_list.highlighted = min(highlighted, len(actions) - 1) if actions else None
        option_list.set_class(not actions, "-empty")
        count = len(actions)
        title = f"Approvals · {count} pending" if count else "Approvals"
        self.query_one("#approvals-title", Static).update(title)
        if changed or current is None:
            self._preview()
        if count != self._count:
            self._count = count
            self.post_message(self.CountChanged(count))

    @staticmethod
    def _option(action: PendingAction) -> Option:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{KIND_ICONS.get(action.kind, '•')} ", style="bold")
        text.append(action_title(action))
        if action.sandbox_denied is not None:
            text.append(" ⚠ unconfined", style="bold red")
        elif action.protected:
            text.append(" ⚠", style="bold red")
        return Option(text, id=action.id)

    @property
    def selected_action(self) -> PendingAction | None:
        """The highlighted action (None when the queue is empty)."""
        index = self.option_list.highlighted if self.is_mounted else None
        if index is None or not 0 <= index < len(self.actions):
            return None
        return self.actions[index]

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._preview()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # enter on an action: look at its diff (approving needs y)
        self.preview.diff.go(0)

    def _preview(self) -> None:
        action = self.selected_action
        rejected = self.rejected.get(action.id, set()) if action is not None else set()
        self.preview.show(action, rejected=rejected)
        self.refresh_bindings()

    def focus(self, scroll_visible: bool = True) -> ApprovalQueuePane:
        """Focusing the pane focuses its list (where its keys apply)."""
        self.option_list.focus(scroll_visible)
        return self
