"""The approval queue pane: every pending edit, write and command, with a preview of the
selected one and the keys to decide it.

The screen calls `sync` on each of the queue's events (requested, decided, cancelled: through
the UI's one event bridge). The pane resolves actions only through `ApprovalQueue.approve` /
`deny`, whose futures the agent awaits, and asks the screen for the modals (deny reason,
editor, batch review). It posts `CountChanged` when the number of pending actions changes (a
badge in the header) and `Decided` for each decision made here (a line in the transcript).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from swetui.agent import (
    ApprovalQueue,
    Decision,
    PendingAction,
    Remember,
    UnknownActionError,
)
from swetui.ui.widgets.approval_preview import KIND_ICONS, ActionPreview, action_title
from swetui.ui.widgets.modal_requests import (
    ApprovalEditRequested,
    BatchReviewRequested,
    DenyReasonRequested,
)


class ApprovalQueuePane(Widget):
    """Pending actions, the selected one previewed; approve, deny, edit, pick hunks."""

    DEFAULT_CSS = """
    ApprovalQueuePane {
        height: 1fr;
        layout: vertical;
        & > OptionList, & > OptionList:focus {
            height: auto;
            max-height: 7;
            border: none;
            padding: 0;
        }
        & > OptionList.-empty { height: 0; }
    }
    """

    ALLOW_MAXIMIZE = True  # F8 on its list maximises the whole pane, diff included

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
        # Page keys scroll the diff, not the (short) list of actions: priority over the list.
        Binding("pagedown,ctrl+d", "scroll_preview(1)", "Scroll diff", show=False,
                priority=True),
        Binding("pageup,ctrl+u", "scroll_preview(-1)", "Scroll diff up", show=False,
                priority=True),
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

    def compose(self) -> ComposeResult:
        yield OptionList(id="approvals-list")
        yield ActionPreview(id="approvals-preview")

    @property
    def option_list(self) -> OptionList:
        return self.query_one(OptionList)

    @property
    def preview(self) -> ActionPreview:
        return self.query_one(ActionPreview)

    def on_mount(self) -> None:
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
        # The count goes in the pane's own border title: one title, not a second one inside.
        self.border_title = f"Approvals · {count} pending" if count else "Approvals"
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

    # -- decisions (each resolves the future the agent awaits) ---------------------------

    def _decided(self, action: PendingAction, decision: Decision) -> None:
        self.post_message(self.Decided(action, decision))
        self.sync()

    def _approve(self, action: PendingAction, *, remember: Remember = "once",
                 edited: str | None = None, unconfined: bool = False) -> None:
        rejected = self.rejected.get(action.id, set())
        hunks: list[int] | None = None
        if rejected and edited is None and action.kind != "bash":
            hunks = [hunk.index for hunk in action.hunks if hunk.index not in rejected]
            if not hunks:
                self.notify("Every hunk is rejected: deny it instead (n)", severity="warning")
                return
        try:
            decision = self.queue.approve(action.id, hunks=hunks, edited=edited,
                                          remember=remember, unconfined=unconfined)
        except UnknownActionError:
            self.notify("That action was already decided", severity="warning")
            self.sync()
            return
        except ValueError as exc:  # edited arguments that are not a JSON object
            self.notify(str(exc), severity="error")
            return
        self._decided(action, decision)

    def action_approve(self) -> None:
        """Approve the selected action (only its accepted hunks, if some were rejected)."""
        if (action := self.selected_action) is not None:
            self._approve(action)

    def action_approve_session(self) -> None:
        """Approve and allow the same for the rest of this session."""
        if (action := self.selected_action) is not None:
            self._approve(action, remember="session")

    def action_approve_workspace(self) -> None:
        """Approve and always allow the same in this workspace (a rule in its config)."""
        if (action := self.selected_action) is not None:
            self._approve(action, remember="workspace")

    def action_approve_unconfined(self) -> None:
        """Approve the selected command and run it outside the sandbox (a one-off)."""
        action = self.selected_action
        if action is not None and action.kind == "bash":
            self._approve(action, unconfined=True)

    def action_approve_all(self) -> None:
        """Approve every pending action as proposed (never an unconfined run: that is
        decided one by one)."""
        skipped = 0
        for action in list(self.actions):
            if action.sandbox_denied is not None:
                skipped += 1
                continue
            try:
                decision = self.queue.approve(action.id)
            except UnknownActionError:
                continue
            self._decided(action, decision)
        if skipped:
            self.notify("Running a command outside the sandbox is decided one at a time (y)",
                        severity="warning")

    def action_deny(self) -> None:
        """Deny the selected action with a reason the model is told (the screen asks)."""
        action = self.selected_action
        if action is not None:
            self.post_message(DenyReasonRequested(action, partial(self.deny, action)))

    def deny(self, action: PendingAction, reason: str) -> None:
        """Deny `action`, telling the model `reason`."""
        try:
            decision = self.queue.deny(action.id, reason)
        except UnknownActionError:
            self.sync()
            return
        self._decided(action, decision)

    def action_edit(self) -> None:
        """Edit the new content (or the command, or an MCP call's arguments) and approve
        the edited version."""
        action = self.selected_action
        if action is not None:
            self.post_message(ApprovalEditRequested(action, partial(self.approve_edited,
                                                                    action)))

    def approve_edited(self, action: PendingAction, text: str) -> None:
        """Approve `action` with the user's version of its content (or command)."""
        self._approve(action, edited=text)

    def _has_hunks(self) -> bool:
        action = self.selected_action
        return action is not None and action.kind != "bash" and bool(action.hunks)

    def action_toggle_hunk(self) -> None:
        """Accept or reject the current hunk (y then applies only the accepted ones)."""
        action = self.selected_action
        if action is None or not self._has_hunks():
            return
        index = self.preview.diff.toggle_current()
        if index is not None:
            self.rejected[action.id] = set(self.preview.diff.rejected)

    def action_next_hunk(self) -> None:
        self.preview.diff.go(1)

    def action_previous_hunk(self) -> None:
        self.preview.diff.go(-1)

    def action_scroll_preview(self, pages: int) -> None:
        """Scroll the diff (or the command) by a page, keeping the focus on the list."""
        target = self.preview.diff if self.preview.diff.display else self.preview
        if pages > 0:
            target.scroll_page_down(animate=False)
        else:
            target.scroll_page_up(animate=False)

    def action_batch_review(self) -> None:
        """Review every pending action together, deciding each."""
        if self.actions:
            self.post_message(BatchReviewRequested(list(self.actions), self.decide_batch))

    def decide_batch(self, choices: dict[str, bool]) -> None:
        """Approve (True) or deny each action by id, as the batch review chose."""
        by_id = {action.id: action for action in self.actions}
        for action_id, approve in choices.items():
            action = by_id.get(action_id)
            if action is None or (approve and action.sandbox_denied is not None):
                continue
            try:
                decision = (self.queue.approve(action_id) if approve else
                            self.queue.deny(action_id, "Denied in batch review."))
            except UnknownActionError:
                continue
            self._decided(action, decision)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"toggle_hunk", "next_hunk", "previous_hunk"}:
            return self._has_hunks() or None
        if action == "approve_unconfined":
            selected = self.selected_action
            return (selected is not None and selected.kind == "bash") or None
        if action in {"approve", "deny", "edit", "approve_session", "approve_workspace",
                      "approve_all", "batch_review"}:
            return self.selected_action is not None or None
        return True
