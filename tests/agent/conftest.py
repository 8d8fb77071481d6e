"""Fixtures for the agent's tools and approvals: a workspace, a bus that records events and
a toolbox factory. Names are prefixed so they never shadow the suite-wide fixtures."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.events import PendingAction
from swetui.agent.toolbox import Toolbox
from swetui.config import Settings
from swetui.engine.bus import EventBus
from swetui.messages import ToolCall
from tests.waiting import eventually

_ids = itertools.count(1)


def tool_call(name: str, **arguments: Any) -> ToolCall:
    """A tool call as the model would send it."""
    return ToolCall(id=f"call_{next(_ids)}", name=name, arguments=arguments)


class Recorder:
    """Every event published on the bus, in order."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[BaseModel] = []
        bus.subscribe(self.events.append)

    def of(self, kind: type[BaseModel]) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    print('hello')\n    return 0\n")
    (root / "README.md").write_text("# Project\n\nSome text.\n")
    return root


@pytest.fixture
def agent_settings() -> Settings:
    return Settings(max_read_lines=50, max_file_bytes=4096, bash_timeout=20)


@pytest.fixture
def agent_bus() -> EventBus:
    return EventBus()


@pytest.fixture
def recorder(agent_bus: EventBus) -> Recorder:
    return Recorder(agent_bus)


@pytest.fixture
def make_toolbox(ws_root: Path, agent_settings: Settings, agent_bus: EventBus,
                 recorder: Recorder) -> Callable[..., Toolbox]:
    def make(mode: str = "ask", **kwargs: Any) -> Toolbox:
        queue = kwargs.pop("queue", None)
        queue = ApprovalQueue(agent_bus) if queue is None else queue
        return Toolbox(ws_root, kwargs.pop("settings", agent_settings), queue, agent_bus,
                       mode=mode, **kwargs)
    return make


@pytest.fixture
def toolbox(make_toolbox: Callable[..., Toolbox]) -> Toolbox:
    return make_toolbox("ask")


async def wait_pending(queue: ApprovalQueue, count: int = 1) -> list[PendingAction]:
    """Wait until the agent's task has queued `count` actions; return what is pending."""
    await eventually(lambda: len(queue.pending()) >= count, f"{count} actions are pending")
    return queue.pending()
