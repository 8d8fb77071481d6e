"""What a pane asks the screen to open: a pane never pushes a screen itself.

Each request carries what the modal shows and a callback that takes the user's answer back
to the pane, so the screen opens the modal without knowing the pane's insides.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message

from swetui.agent import (
    PendingAction,
)
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem


class ModalRequest(Message):
    """A pane asks the screen for a modal (the screen handles every kind in one place)."""


class DenyReasonRequested(ModalRequest):
    """Ask why `action` is denied; `deny(reason)` denies it (not called on esc)."""

    def __init__(self, action: PendingAction, deny: Callable[[str], None]) -> None:
        super().__init__()
        self.action = action
        self.deny = deny


class ApprovalEditRequested(ModalRequest):
    """Edit `action`'s content or command; `approve(text)` approves the edited version."""

    def __init__(self, action: PendingAction, approve: Callable[[str], None]) -> None:
        super().__init__()
        self.action = action
        self.approve = approve


class BatchReviewRequested(ModalRequest):
    """Review `actions` together; `decide(choices)` applies approve (True) / deny per id."""

    def __init__(self, actions: list[PendingAction],
                 decide: Callable[[dict[str, bool]], None]) -> None:
        super().__init__()
        self.actions = actions
        self.decide = decide


class ItemEditRequested(ModalRequest):
    """Edit what is sent for `item`: `save(text)` keeps the edit, `revert()` the original."""

    def __init__(self, item: ContextItem, save: Callable[[str], None],
                 revert: Callable[[], None]) -> None:
        super().__init__()
        self.item = item
        self.save = save
        self.revert = revert


class ItemPreviewRequested(ModalRequest):
    """Show `item`'s full content (`sent_tokens`: what it costs in the next request)."""

    def __init__(self, item: ContextItem, sent_tokens: int) -> None:
        super().__init__()
        self.item = item
        self.sent_tokens = sent_tokens


class RequestViewRequested(ModalRequest):
    """Show the exact next request `engine` assembles."""

    def __init__(self, engine: ContextEngine) -> None:
        super().__init__()
        self.engine = engine
