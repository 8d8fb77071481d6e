"""What the approval pane's keys do. Every decision goes through `ApprovalQueue`, which
resolves the future the agent awaits; the pane then posts `Decided` for the transcript."""

from __future__ import annotations

from typing import TYPE_CHECKING

from swetui.agent.approvals import UnknownActionError
from swetui.agent.events import Decision, PendingAction, Remember

if TYPE_CHECKING:
    from textual.app import App

    from swetui.agent.approvals import ApprovalQueue
    from swetui.ui.widgets.approval_preview import ActionPreview


class ApprovalActions:
    """Key actions of `ApprovalQueuePane` (a mixin: the pane supplies the attributes)."""

    queue: ApprovalQueue
    actions: list[PendingAction]
    rejected: dict[str, set[int]]

    if TYPE_CHECKING:
        app: App[object]

        @property
        def selected_action(self) -> PendingAction | None: ...
        @property
        def preview(self) -> ActionPreview: ...
        def notify(self, message: str, *, title: str = "", severity: str = "information",
                   timeout: float | None = None, markup: bool = True) -> None: ...
        def post_message(self, message: object) -> bool: ...
        def sync(self) -> None: ...
        def refresh_bindings(self) -> None: ...

    def _decided(self, action: PendingAction, decision: Decision) -> None:
        from swetui.ui.widgets.approvals import ApprovalQueuePane

        self.post_message(ApprovalQueuePane.Decided(action, decision))
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
        """Deny the selected action with a reason the model is told."""
        from swetui.ui.screens.deny_reason import DenyReason

        action = self.selected_action
        if action is None:
            return

        def done(reason: str | None) -> None:
            if reason is None:
                return
            try:
                decision = self.queue.deny(action.id, reason)
            except UnknownActionError:
                self.sync()
                return
            self._decided(action, decision)

        self.app.push_screen(DenyReason(action), done)

    def action_edit(self) -> None:
        """Edit the new content (or the command) and approve the edited version."""
        from swetui.ui.screens.item_editor import EditorResult, ItemEditor

        action = self.selected_action
        if action is None:
            return
        if action.kind == "bash":
            text, title = action.command or "", "Edit the command, then approve"
        else:
            text, title = action.new_content or "", f"Edit {action.path}, then approve"

        def done(result: EditorResult | None) -> None:
            if result is not None and result.text is not None:
                self._approve(action, edited=result.text)

        self.app.push_screen(ItemEditor(title, text, subtitle=action.cwd if action.kind ==
                                        "bash" else "the file as it will be written",
                                        save_label="approve"), done)

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

    def action_batch_review(self) -> None:
        """Review every pending action together, deciding each."""
        from swetui.ui.screens.batch_review import BatchReview

        if not self.actions:
            return

        def done(choices: dict[str, bool] | None) -> None:
            if not choices:
                return
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

        self.app.push_screen(BatchReview(list(self.actions)), done)

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
