"""The approval queue: pending actions, each with a future the agent awaits.

The agent submits an action and awaits the returned future; the UI lists `pending()` and
resolves actions with `approve`/`deny`. Every change is published on the event bus.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable

from swetui.agent.events import (
    ApprovalCancelled,
    ApprovalDecided,
    ApprovalRequested,
    DecidedBy,
    Decision,
    PendingAction,
    Remember,
)
from swetui.agent.mcp.calls import edited_arguments
from swetui.engine.bus import EventBus

__all__ = ["ApprovalQueue", "Decision", "PendingAction", "UnknownActionError"]


class UnknownActionError(KeyError):
    """No pending action has this id (it never existed or was already decided)."""

    def __init__(self, action_id: str) -> None:
        super().__init__(action_id)
        self.action_id = action_id

    def __str__(self) -> str:
        return f"no pending action with id {self.action_id!r} (unknown or already decided)"


class ApprovalQueue:
    """Actions waiting for the user, in the order they arrived."""

    def __init__(self, bus: EventBus | None = None) -> None:
        self.bus = bus if bus is not None else EventBus()
        self._entries: dict[str, tuple[PendingAction, asyncio.Future[Decision]]] = {}
        # Restored actions nobody awaits yet: a decision made before the agent resumes them
        # is kept here until `submit` picks it up.
        self._unclaimed: dict[str, asyncio.Future[Decision]] = {}

    # -- the agent's side ----------------------------------------------------------------

    def submit(self, action: PendingAction) -> asyncio.Future[Decision]:
        """Queue `action`; the future resolves with the decision. Submitting an id that is
        already queued (or was restored and decided) returns its existing future."""
        if action.id in self._entries:
            future = self._entries[action.id][1]
            self._unclaimed.pop(action.id, None)
            return future
        if action.id in self._unclaimed:
            return self._unclaimed.pop(action.id)
        future = self._add(action)
        return future

    def _add(self, action: PendingAction) -> asyncio.Future[Decision]:
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._entries[action.id] = (action, future)
        future.add_done_callback(functools.partial(self._on_done, action.id))
        self.bus.publish(ApprovalRequested(action=action))
        return future

    def _on_done(self, action_id: str, future: asyncio.Future[Decision]) -> None:
        # A cancelled future means the awaiting turn was interrupted: the action leaves the
        # queue undecided and nothing is applied.
        if future.cancelled() and self._entries.pop(action_id, None) is not None:
            self._unclaimed.pop(action_id, None)
            self.bus.publish(ApprovalCancelled(action_id=action_id,
                                               reason="the turn was interrupted"))

    def discard(self, action_id: str, reason: str = "withdrawn") -> None:
        """Remove an undecided action without a decision (no-op when unknown)."""
        entry = self._entries.get(action_id)
        if entry is not None and not entry[1].done():
            entry[1].cancel()  # _on_done removes it and publishes ApprovalCancelled
        self._unclaimed.pop(action_id, None)

    def restore(self, actions: Iterable[PendingAction]) -> list[PendingAction]:
        """Re-add actions loaded from a session log as pending; returns those added."""
        added = []
        for action in actions:
            if action.id in self._entries:
                continue
            self._unclaimed[action.id] = self._add(action)
            added.append(action)
        return added

    # -- the user's side -----------------------------------------------------------------

    def pending(self) -> list[PendingAction]:
        """Undecided actions, oldest first."""
        return [action for action, future in self._entries.values() if not future.done()]

    def get(self, action_id: str) -> PendingAction:
        entry = self._entries.get(action_id)
        if entry is None or entry[1].done():
            raise UnknownActionError(action_id)
        return entry[0]

    def __contains__(self, action_id: object) -> bool:
        return isinstance(action_id, str) and any(a.id == action_id for a in self.pending())

    def resolve(self, action_id: str, decision: Decision, by: DecidedBy = "user") -> None:
        """Answer a pending action with `decision`."""
        action = self.get(action_id)
        future = self._entries.pop(action_id)[1]
        future.set_result(decision)
        self.bus.publish(ApprovalDecided(action_id=action_id, decision=decision, by=by,
                                         action=action))

    def approve(self, action_id: str, *, hunks: list[int] | None = None,
                edited: str | None = None, remember: Remember = "once",
                rule_pattern: str | None = None, unconfined: bool = False) -> Decision:
        """Approve an action, optionally only some hunks, or with user-edited content;
        `unconfined` runs an approved command outside the sandbox (never remembered)."""
        action = self.get(action_id)
        if unconfined and action.kind != "bash":
            raise ValueError("only a command can run unconfined")
        if unconfined and remember != "once":
            raise ValueError("running unconfined is a one-off choice; it is not remembered")
        if edited is not None and action.kind == "mcp":
            edited_arguments(edited)  # raises ValueError with the message to show
        if hunks is not None:
            if action.kind == "bash":
                raise ValueError("a command has no hunks to select")
            known = {hunk.index for hunk in action.hunks}
            unknown = sorted(set(hunks) - known)
            if unknown:
                raise ValueError(f"no hunk {unknown[0]} in this edit "
                                 f"(it has {len(action.hunks)} hunks)")
        decision = Decision(approved=True, hunks=sorted(set(hunks)) if hunks is not None
                            else None, edited=edited, remember=remember,
                            rule_pattern=rule_pattern, unconfined=unconfined)
        self.resolve(action_id, decision)
        return decision

    def deny(self, action_id: str, reason: str | None = None, *, remember: Remember = "once",
             rule_pattern: str | None = None) -> Decision:
        """Deny an action; `reason` is sent to the model."""
        decision = Decision(approved=False, reason=(reason or "").strip() or None,
                            remember=remember, rule_pattern=rule_pattern)
        self.resolve(action_id, decision)
        return decision

    def approve_all(self) -> int:
        """Approve every pending action as proposed; returns how many. An offer to run a
        command outside the sandbox is never approved in bulk."""
        ids = [action.id for action in self.pending() if action.sandbox_denied is None]
        for action_id in ids:
            self.approve(action_id)
        return len(ids)

    def deny_all(self, reason: str | None = None) -> int:
        """Deny every pending action with the same reason; returns how many."""
        ids = [action.id for action in self.pending()]
        for action_id in ids:
            self.deny(action_id, reason)
        return len(ids)
