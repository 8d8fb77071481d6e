"""UI fixtures: no blinking, no ticking clock, no file watching; a real offline session on a
small workspace, and helpers to drive turn events deterministically."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.notifications import Notifications
from textual.widgets import TextArea

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
from swetui.engine.sources import SYSTEM_PROMPT
from swetui.engine.tokens import TokenCounter
from swetui.messages import ToolCall
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.widgets.prompt import PromptInput
from swetui.ui.widgets.status import TurnStatus
from tests.ui.waits import keep_notices, record_events

WHEN = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def still_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cursor blink off, status timer off, a fixed clock, every notification kept (notices)."""
    monkeypatch.setattr(PromptInput, "BLINK", False)
    # Every other text area (the item editor) keeps its cursor shown: its blink timer hid the
    # cursor in a snapshot taken more than half a second after the editor opened, under load.
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    monkeypatch.setattr(TurnStatus, "TICKING", False)
    monkeypatch.setattr(TurnStatus, "clock", staticmethod(lambda: 100.0))
    monkeypatch.setattr(Notifications, "add", keep_notices(Notifications))


PROMPT_PATH_TOKENS = 64
"""What the demo workspace's path costs in the system prompt, on every run and machine.

The system prompt names the workspace's absolute path, and its token count shows on screen
(the gauge, the inspector). Each test's workspace lives in its own `tmp_path`, whose path
differs from run to run, so a padding directory brings every one to this cost: the figures
on screen are real counts of what is sent, and still the same every time."""


def _prompt_path_cost(root: Path) -> int:
    counter = TokenCounter()  # the product's own counter, as the gauge counts
    return (counter.count(SYSTEM_PROMPT.format(root=root))
            - counter.count(SYSTEM_PROMPT.format(root="")))


def fixed_cost_root(base: Path) -> Path:
    """`base/<padding>/demo`, whose path costs exactly PROMPT_PATH_TOKENS tokens."""
    deficit = PROMPT_PATH_TOKENS - _prompt_path_cost(base / "x" / "demo")
    # "/x" is one token; "/" then each "000" is one token more.
    padding = "x" if deficit <= 0 else "000" * deficit
    root = base / padding / "demo"
    if _prompt_path_cost(root) != PROMPT_PATH_TOKENS:
        pytest.fail(f"the temporary directory {base} is too long for the UI snapshots "
                    f"(its path must cost under {PROMPT_PATH_TOKENS} tokens): run pytest "
                    "with a shorter --basetemp")
    return root


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A small workspace of this test's own, with a file to edit and a binary file."""
    root = fixed_cost_root(tmp_path)
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
        session.repo_map.enabled = False  # its outline would appear whenever its build ends
        record_events(session)
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
