"""Approvals across restarts: every request, decision and command start goes into the
session log, and the actions a stopped process left waiting come back pending (never
executed) and are carried out once decided."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from pydantic import BaseModel

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.events import ApprovalDecided, ApprovalRequested, CommandStarted, PendingAction
from swetui.agent.tool_results import add_tool_result
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.base import ToolResult
from swetui.engine.bus import EventBus
from swetui.engine.context import ContextEngine
from swetui.engine.store import RecordEvent

log = logging.getLogger(__name__)


def journal_approvals(bus: EventBus, record: RecordEvent) -> None:
    """Log approval requests and decisions, and each command before it starts (durably: if
    swetui dies while it runs, resume knows)."""

    def on_event(event: BaseModel) -> None:
        if isinstance(event, ApprovalRequested):
            record("approval_requested", {"action": event.action.model_dump(mode="json")})
        elif isinstance(event, ApprovalDecided):
            record("approval_decided", {
                "action_id": event.action_id,
                "decision": event.decision.model_dump(mode="json"), "by": event.by})
        elif isinstance(event, CommandStarted):
            record("command_started", {"action_id": event.action_id,
                                       "call_id": event.call_id, "command": event.command,
                                       "confined": event.confined})

    bus.subscribe(on_event, ApprovalRequested)
    bus.subscribe(on_event, ApprovalDecided)
    bus.subscribe(on_event, CommandStarted)


def pending_in_log(replayed: list[dict[str, Any]], notices: list[str]) -> list[PendingAction]:
    """Actions the log shows were requested and never decided; a malformed one is told in
    `notices` (shown at start: the bus has no listener yet while the session opens)."""
    requested: dict[str, dict[str, Any]] = {}
    for event in replayed:
        if event.get("type") == "approval_requested":
            action = event.get("action") or {}
            requested[action.get("id", "")] = action
        elif event.get("type") == "approval_decided":
            requested.pop(event.get("action_id", ""), None)
    actions = []
    for data in requested.values():
        try:
            actions.append(PendingAction.model_validate(data))
        except ValueError:
            notices.append("a pending approval in the session log is malformed and could not "
                           "be restored; it was dropped, nothing was run")
    return actions


class RestoredApprovals:
    """The actions restored pending, and what became of each once decided."""

    def __init__(self, queue: ApprovalQueue, toolbox: Toolbox, engine: ContextEngine,
                 record: RecordEvent) -> None:
        self.queue = queue
        self.toolbox = toolbox
        self.engine = engine
        self.record = record
        self.actions: list[PendingAction] = []
        """Actions that were pending when the last process ended, restored pending."""
        self._results: list[tuple[PendingAction, ToolResult]] = []
        self._settled = asyncio.Event()
        self._to_restore: tuple[list[PendingAction],
                                Callable[[Coroutine[Any, Any, None]], None]] | None = None

    def restore(self, replayed: list[dict[str, Any]],
                spawn: Callable[[Coroutine[Any, Any, None]], None],
                notices: list[str]) -> None:
        """Put the log's undecided actions back in the queue; `spawn` runs their resumption
        in the background. Opened before an event loop runs (the full-screen app), the
        queue cannot make its futures yet: `start` finishes the job."""
        actions = pending_in_log(replayed, notices)
        if not actions:
            self._settled.set()
            return
        self._to_restore = (actions, spawn)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self.start()

    def start(self) -> None:
        """Restore what `restore` had to defer (called once a loop runs)."""
        if self._to_restore is None:
            return
        actions, spawn = self._to_restore
        self._to_restore = None
        self.actions = self.queue.restore(actions)
        for action in self.actions:
            self.toolbox.deny_by_rule(action)
        if not self.actions:
            self._settled.set()
            return
        spawn(self._resume_all(self.actions))

    async def outcomes(self) -> list[tuple[PendingAction, ToolResult]]:
        """Wait until every restored action was decided and carried out; each with its tool
        result, in the order they finished."""
        await self._settled.wait()
        return list(self._results)

    async def _resume_all(self, actions: list[PendingAction]) -> None:
        # Concurrently: the user may decide restored actions in any order.
        try:
            outcomes = await asyncio.gather(
                *(self._resume_action(action) for action in actions), return_exceptions=True)
            for action, outcome in zip(actions, outcomes, strict=True):
                if isinstance(outcome, Exception):
                    log.error("restored action %s failed", action.id, exc_info=outcome)
        finally:
            self._settled.set()

    async def _resume_action(self, action: PendingAction) -> None:
        result = await self.toolbox.resume(action)
        self._results.append((action, result))
        call = action.call
        add_tool_result(self.engine, self.record, call_id=call.id, name=call.name,
                        arguments=call.arguments, content=result.content,
                        summary=result.summary, is_error=result.is_error, path=result.path,
                        title=f"{call.name} (decided after restart)")
