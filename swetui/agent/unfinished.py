"""Tool calls a stopped process left without a result, read from its session log.

When swetui is killed mid-turn, the model's message with its tool calls is in the log but
some calls have no result. A request with a call and no result is invalid (so the call would
silently vanish from the next one); worse, a command that was running has been killed and
may have partly run. On resume each such call gets a result that says what happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from swetui.agent.tool_results import add_tool_result
from swetui.engine.context import ContextEngine
from swetui.engine.store import RecordEvent


@dataclass(frozen=True)
class UnfinishedCall:
    """A call with no result: what it was and the result it gets now."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    content: str
    summary: str
    command: str | None = None
    """The command line when it was running as swetui stopped."""
    action: dict[str, Any] | None = None
    """The approved edit or write swetui stopped applying (as the log recorded it)."""
    is_error: bool = True


def unfinished_calls(events: list[dict[str, Any]]) -> list[UnfinishedCall]:
    """Calls the log shows were made but never answered (and are not pending approval)."""
    calls: dict[str, dict[str, Any]] = {}
    answered: set[str] = set()
    action_call: dict[str, str] = {}
    actions: dict[str, dict[str, Any]] = {}
    pending: set[str] = set()
    approved: set[str] = set()
    running: dict[str, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "assistant":
            for call in event.get("calls") or []:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    calls[call["id"]] = call
        elif kind == "tool_result":
            answered.add(str(event.get("call_id")))
        elif kind == "approval_requested":
            action = event.get("action") or {}
            call_id = str((action.get("call") or {}).get("id", ""))
            action_call[str(action.get("id", ""))] = call_id
            actions[call_id] = action
            pending.add(call_id)
        elif kind == "approval_decided":
            call_id = action_call.get(str(event.get("action_id", "")), "")
            pending.discard(call_id)
            if (event.get("decision") or {}).get("approved"):
                approved.add(call_id)
        elif kind == "command_started":
            running[str(event.get("call_id", ""))] = str(event.get("command", ""))
    found = []
    for call_id, call in calls.items():
        if call_id in answered or call_id in pending:
            continue
        name = str(call.get("name", ""))
        arguments = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
        if call_id in running:
            command = running[call_id]
            found.append(UnfinishedCall(
                call_id, name, arguments or {},
                content=f"$ {command}\nswetui stopped while this command was running, and the "
                        "command was killed with it: it may have partly run or taken effect, "
                        "and its output is lost. Check the workspace before running it again.",
                summary="killed: swetui stopped while it ran", command=command))
        elif call_id in approved:
            found.append(UnfinishedCall(
                call_id, name, arguments or {},
                content="swetui stopped after this was approved, before its result was "
                        "recorded: it may or may not have taken effect. Check before "
                        "retrying it.", summary="unknown: swetui stopped",
                action=actions.get(call_id)))
        else:
            found.append(UnfinishedCall(
                call_id, name, arguments or {},
                content="Not run: swetui stopped before this call ran.",
                summary="not run: swetui stopped"))
    return found


def close_unfinished(replayed: list[dict[str, Any]], engine: ContextEngine,
                     record: RecordEvent, notices: list[str],
                     writes: InterruptedWrites | None = None) -> None:
    """Give every call the last process left unanswered a result that says why, so the
    model and the user learn what happened (a killed command above all; an edit swetui
    stopped applying is looked up on disk by `writes`)."""
    for call in unfinished_calls(replayed):
        if call.action is not None and writes is not None:
            call, notice = writes.settle(call)
            if notice:
                notices.append(notice)
        add_tool_result(engine, record, call_id=call.call_id, name=call.name,
                        arguments=call.arguments, content=call.content, summary=call.summary,
                        is_error=call.is_error, path=None, title=f"{call.name} ({call.summary})")
        if call.command is not None:
            notices.append(f"a command was running when swetui stopped and was killed with "
                           f"it: {call.command}")


class InterruptedWrites(Protocol):
    """Settles an approved edit or write swetui stopped applying."""

    def settle(self, call: UnfinishedCall) -> tuple[UnfinishedCall, str | None]:
        """The call with a result that says whether the change landed, and a notice."""
        ...
