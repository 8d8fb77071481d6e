"""Regenerate the README screenshots (SVG, saved by the app itself) into `docs/`.

    python scripts/screenshots.py [--out docs]

Two pictures, on a small demo workspace with the offline model:
- `workspace-streaming.svg`: a turn mid-stream (reasoning, actions, part of the answer);
- `workspace-approvals.svg`: the inspector (pinned / dropped items) and a pending edit's diff.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZE = (160, 48)

APP_PY = '''"""A tiny web service."""

from service.handlers import greet


def main(argv: list[str]) -> int:
    name = argv[1] if len(argv) > 1 else "world"
    print(greet(name))
    return 0
'''
HANDLERS_PY = '''def greet(name: str) -> str:
    """Greet someone by name."""
    return f"hello {name}"
'''

GREP_HITS = ("service/app.py:3: from service.handlers import greet\n"
             "service/handlers.py:1: def greet(name: str) -> str:\n"
             "tests/test_handlers.py:1: from service.handlers import greet")


def make_workspace(base: Path) -> Path:
    root = base / "service"
    (root / "service").mkdir(parents=True)
    (root / "README.md").write_text("# service\n\nA tiny web service that greets people.\n")
    (root / "service" / "__init__.py").write_text("")
    (root / "service" / "app.py").write_text(APP_PY)
    (root / "service" / "handlers.py").write_text(HANDLERS_PY)
    (root / "tests").mkdir()
    (root / "tests" / "test_handlers.py").write_text(
        "from service.handlers import greet\n\n\ndef test_greet():\n"
        "    assert greet('ada') == 'hello ada'\n")
    return root


def _app(root: Path):
    from swetui.agent.session import AgentSession
    from swetui.options import LaunchOptions
    from swetui.ui.app import SweTuiApp

    options = LaunchOptions(path=root, model="offline", watch=False)
    return SweTuiApp(AgentSession.open(options, env={}), options=options, watch=False)


def _still() -> None:
    from swetui.ui.widgets.prompt import PromptInput
    from swetui.ui.widgets.status import TurnStatus

    PromptInput.BLINK = False
    TurnStatus.TICKING = False
    TurnStatus.clock = staticmethod(lambda: 100.0)


async def streaming(root: Path, out: Path) -> None:
    from swetui.agent.turn_events import (
        AnswerChunk,
        ModelCallStarted,
        ReasoningChunk,
        ToolCallFinished,
        ToolCallStarted,
        TurnStarted,
    )
    from swetui.ui.widgets.status import TurnStatus

    app = _app(root)
    async with app.run_test(size=SIZE) as pilot:
        app.screen.header.workspace = "~/src/service"
        bus = app.session.bus
        events = [
            TurnStarted(turn=1, text="Where is greet defined, and how is it tested?"),
            ModelCallStarted(turn=1, step=1, model="offline", input_tokens=1210),
            ReasoningChunk(turn=1, text="The user asks where greet lives and how it is "
                                        "tested: grep for it, then read the handler."),
            ToolCallStarted(turn=1, call_id="c1", name="grep", arguments={"pattern": "greet"}),
            ToolCallFinished(turn=1, call_id="c1", name="grep", summary="3 matches in 3 files",
                             content=GREP_HITS),
            ToolCallStarted(turn=1, call_id="c2", name="read_file",
                            arguments={"path": "service/handlers.py"}),
            ToolCallFinished(turn=1, call_id="c2", name="read_file",
                             summary="read 3 lines of service/handlers.py",
                             content=HANDLERS_PY),
            AnswerChunk(turn=1, text="`greet` is defined in **service/handlers.py**:\n\n"
                                     "```python\n" + HANDLERS_PY + "```\n\n"),
            AnswerChunk(turn=1, text="It is used by `main` in `service/app.py`, and tested "
                                     "in `tests/test_handlers.py`, which checks that"),
        ]
        for event in events:
            bus.publish(event)
        await pilot.pause(0.2)
        await app.screen.transcript.settle()
        TurnStatus.clock = staticmethod(lambda: 103.0)
        app.screen.status.tick()
        await pilot.pause()
        app.save_screenshot("workspace-streaming.svg", str(out))


async def approvals(root: Path, out: Path) -> None:
    app = _app(root)
    async with app.run_test(size=SIZE) as pilot:
        app.screen.header.workspace = "~/src/service"
        session = app.session
        session.add_path("service/handlers.py")
        session.add_path("README.md")
        readme = session.engine.by_source("README.md")[0]
        session.engine.drop(readme.id)
        handlers = session.engine.by_source("service/handlers.py")[0]
        session.engine.pin(handlers.id)
        await pilot.press(*'replace "hello" with "hi there" in service/handlers.py', "enter")
        for _ in range(200):
            await pilot.pause(0.02)
            if session.queue.pending():
                break
        app.screen.inspector.action_last()  # show the pinned and dropped rows
        await pilot.press("f5")
        await pilot.pause(0.3)
        app.save_screenshot("workspace-approvals.svg", str(out))
        session.cancel()
        await pilot.pause(0.2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="swetui-shots-") as temp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(temp) / "xdg")
        for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SWETUI_MODEL"):
            os.environ.pop(name, None)
        _still()
        asyncio.run(streaming(make_workspace(Path(temp) / "a"), args.out))
        asyncio.run(approvals(make_workspace(Path(temp) / "b"), args.out))
    for name in ("workspace-streaming.svg", "workspace-approvals.svg"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
