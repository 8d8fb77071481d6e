"""The agent's public API: `Session` names what AgentSession offers, `AgentEvent` every event
a session publishes."""

from __future__ import annotations

import inspect
from typing import Protocol, get_args

from pydantic import BaseModel

import swetui.agent.events as agent_events
import swetui.agent.mcp.status as mcp_events
import swetui.agent.turn_events as turn_events
import swetui.engine.events as engine_events
from swetui.agent import AgentEvent, AgentSession, Session
from swetui.options import LaunchOptions

from .scripted import ScriptedProvider, answer, calls

NOT_EVENTS = {agent_events.PendingAction, agent_events.Decision, mcp_events.ServerStatus}
"""Models in the event modules that are payloads, never published on their own."""


def _protocol_members(protocol: type) -> set[str]:
    ignored = set(dir(Protocol)) | {"__annotations__", "__dict__", "__weakref__",
                                    "__protocol_attrs__", "__non_callable_proto_members__"}
    return {name for name in [*vars(protocol), *protocol.__annotations__]
            if name not in ignored and not name.startswith("_")}


def test_every_event_class_of_the_event_modules_is_an_agent_event():
    defined = {cls for module in (engine_events, agent_events, turn_events, mcp_events)
               for _, cls in inspect.getmembers(module, inspect.isclass)
               if issubclass(cls, BaseModel) and cls.__module__ == module.__name__
               and not cls.__name__.startswith("_")} - NOT_EVENTS
    assert defined and defined == set(get_args(AgentEvent))


def test_an_opened_session_offers_every_member_of_the_protocol(workspace):
    session = AgentSession.open(LaunchOptions(path=workspace), env={},
                                provider=ScriptedProvider(answer("ok")))
    members = _protocol_members(Session)
    assert {"send", "compact", "engine", "bus", "queue", "mode", "stats"} <= members
    missing = [name for name in sorted(members) if not hasattr(session, name)]
    assert missing == []
    for name in members:
        declared = getattr(Session, name, None)
        if inspect.iscoroutinefunction(declared):
            assert inspect.iscoroutinefunction(getattr(session, name)), name


async def test_everything_a_turn_publishes_is_an_agent_event(workspace):
    provider = ScriptedProvider(
        calls(("c1", "read_file", {"path": "src/app.py"}),
              ("c2", "write_file", {"path": "notes.txt", "content": "hi\n"})),
        answer("Done."))
    session = AgentSession.open(LaunchOptions(path=workspace, mode="auto"), env={},
                                provider=provider)
    seen: list[BaseModel] = []
    session.bus.subscribe(seen.append)
    finished = await session.send("read and write")
    await session.compact("manual")
    session.undo_edit()
    await session.aclose()
    assert finished.error is None and (workspace / "notes.txt").exists() is False
    kinds = {type(event).__name__ for event in seen}
    assert {"TurnStarted", "ToolCallFinished", "ApprovalDecided", "ItemsChanged",
            "TurnFinished", "EditUndone"} <= kinds
    strays = [type(event).__name__ for event in seen if not isinstance(event, AgentEvent)]
    assert strays == []
