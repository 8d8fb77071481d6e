"""The approval queue pane: pending actions with a preview and the keys to decide them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message
from textual.widget import Widget


class ApprovalQueuePane(Widget):
    """Pending actions with a diff or command preview."""

    class CountChanged(Message):
        """The number of pending actions changed."""

        def __init__(self, count: int) -> None:
            super().__init__()
            self.count = count

    class Decided(Message):
        """The user decided an action."""

        def __init__(self, action: Any, decision: Any) -> None:
            super().__init__()
            self.action = action
            self.decision = decision

    def __init__(self, queue: Any, *, id: str | None = None,  # noqa: A002
                 root: Path | None = None) -> None:
        super().__init__(id=id)
        self.queue = queue
        self.root = root
