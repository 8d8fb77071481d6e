"""UI fixtures: no blinking, no ticking clock, no file watching; a real offline session on a
small workspace, and helpers to drive turn events deterministically."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from swetui.agent.events import PendingAction
from swetui.agent.session import AgentSession
from swetui.agent.turn_events import (
    AnswerChunk,
    ModelCallStarted,
    ReasoningChunk,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from swetui.messages import ToolCall
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.widgets.prompt import PromptInput
from swetui.ui.widgets.status import TurnStatus

WHEN = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def still_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cursor blink off, status timer off, a fixed clock."""
    monkeypatch.setattr(PromptInput, "BLINK", False)
    monkeypatch.setattr(TurnStatus, "TICKING", False)
    monkeypatch.setattr(TurnStatus, "clock", staticmethod(lambda: 100.0))


DEMO_ROOT = Path(tempfile.gettempdir()) / "swetui-ui-tests" / "demo"
"""A fixed path: the system prompt names the workspace, so its token count (on screen in
the gauge and the inspector) must not change from run to run."""


@pytest.fixture
def demo() -> Path:
    """A small workspace with a file to edit and a binary file."""
    root = DEMO_ROOT
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / "README.md").write_text("# Demo\n\nA demo project for swetui.\n")
    (root / "a.txt").write_text("hello there\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    return root


AppFactory = Callable[..., SweTuiApp]


@pytest.fixture
def make_app(demo: Path) -> AppFactory:
    """Build the app on a real offline session of `demo` (watching off)."""

    def factory(root: Path | None = None, *, theme: str | None = None,
                context_limit: int | None = None, resume: str | None = None,
                continue_last: bool = False) -> SweTuiApp:
        options = LaunchOptions(path=root or demo, model="offline", theme=theme,
                                context_limit=context_limit, resume=resume,
                                continue_last=continue_last, watch=False)
        session = AgentSession.open(options, env={})
        return SweTuiApp(session, options=options, watch=False)

    return factory


def stable_header(app: SweTuiApp) -> None:
    """The workspace path differs per run; snapshots show a fixed one."""
    app.screen.header.workspace = "~/demo"


def publish_mid_stream(app: SweTuiApp) -> None:
    """A turn caught mid-answer: reasoning, two actions, part of the answer."""
    bus = app.session.bus
    for event in (
        TurnStarted(turn=1, text="Where is greet defined, and what does the README say?"),
        ModelCallStarted(turn=1, step=1, model="offline", input_tokens=812),
        ReasoningChunk(turn=1, text="The user asks about greet; grep for it, then read "
                                    "the README."),
        ToolCallStarted(turn=1, call_id="call_1", name="grep", arguments={"pattern": "greet"}),
        ToolCallFinished(turn=1, call_id="call_1", name="grep", summary="1 match in 1 file",
                         content="src/app.py:1: def greet(name):"),
        ToolCallStarted(turn=1, call_id="call_2", name="read_file",
                        arguments={"path": "README.md"}),
        ToolCallFinished(turn=1, call_id="call_2", name="read_file",
                         summary="read 3 lines of README.md",
                         content="# Demo\n\nA demo project for swetui.\n"),
        AnswerChunk(turn=1, text="`greet` is defined in **src/app.py**, line 1:\n\n"),
        AnswerChunk(turn=1, text="```python\ndef greet(name):\n    return f'hello {name}'\n"
                                 "```\n\nThe README describes"),
    ):
        bus.publish(event)


def publish_finished(app: SweTuiApp) -> None:
    app.session.bus.publish(AnswerChunk(turn=1, text=" a demo project."))
    app.session.bus.publish(TurnFinished(turn=1, duration=2.4, input_tokens=1840,
                                         output_tokens=96, answer=""))


def pending_edit(root: Path) -> PendingAction:
    """The edit the offline model proposes for `replace "hello" with "world" in a.txt`."""
    from swetui.agent.diffs import compute_hunks, unified_diff

    old, new = "hello there\n", "world there\n"
    hunks = compute_hunks(old, new)
    return PendingAction(id="act_demo", kind="edit", path="a.txt", cwd=str(root),
                         call=ToolCall(id="call_edit", name="edit_file",
                                       arguments={"path": "a.txt", "old": "hello",
                                                  "new": "world"}),
                         diff=unified_diff(old, new, "a.txt", hunks), hunks=hunks,
                         old_content=old, new_content=new, created_at=WHEN,
                         summary="edit a.txt (+1 −1)", rule_hint="a.txt")


def submit_pending(app: SweTuiApp, root: Path) -> asyncio.Future:
    """Queue the demo edit as the agent would (with the transcript's action line)."""
    app.session.bus.publish(TurnStarted(turn=1, text='replace "hello" with "world" in a.txt'))
    app.session.bus.publish(ToolCallStarted(turn=1, call_id="call_edit", name="edit_file",
                                            arguments={"path": "a.txt", "old": "hello",
                                                       "new": "world"}))
    return app.session.queue.submit(pending_edit(root))


async def submit(pilot, text: str) -> None:
    """Put `text` in the prompt and press enter (typing it key by key costs ~60 ms a key)."""
    prompt = pilot.app.screen.prompt.input
    prompt.load_text(text)
    prompt.move_cursor(prompt.document.end)
    await pilot.pause()
    await pilot.press("enter")


async def wait_idle(app: SweTuiApp, pilot, seconds: float = 10.0) -> None:
    """Wait until the session's turn is over and the screen settled."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    await pilot.pause()
    while app.session.busy and loop.time() < deadline:
        await pilot.pause(0.05)
    await pilot.pause(0.1)
    await app.screen.transcript.settle()
    await pilot.pause()
