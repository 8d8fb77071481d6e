"""`swetui init` worth reading: on this repository the structural scan is 2,000–3,000 tokens
of whole sentences, a tree without build output or virtual environments, key files with a
line each, entry points, commands and dependencies; a configured model (a real server on
loopback) writes it from the scan, and a failing one leaves the scan; it can be cancelled
(nothing written) and asks before replacing a SWETUI.md."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from swetui.agent.project_init import MemoryExists, write_project_memory
from swetui.agent.session import AgentSession
from swetui.commands.init import init_memory_file
from swetui.engine.project_memory import Cancelled, build_project_memory
from swetui.engine.tokens import TokenCounter
from swetui.options import LaunchOptions
from swetui.providers.registry import create_provider
from tests.headless import answer
from tests.providers.loopback import LoopbackServer, json_reply

REPOSITORY = Path(__file__).resolve().parents[1]


def test_the_scan_of_this_repository_is_worth_reading():
    steps: list[str] = []
    text = build_project_memory(REPOSITORY, steps.append)
    assert 2_000 <= TokenCounter().count(text) <= 3_000
    assert text.startswith("# swetui: project memory")
    overview = text.split("## Overview\n\n", 1)[1].split("\n\n", 1)[0]
    assert overview.endswith(".") and "context you can see and steer" in overview
    structure = text.split("## Structure\n", 1)[1].split("\n\n", 1)[0]
    assert "- `swetui/`" in structure and "  - `engine/`" in structure
    for never in ("egg-info", ".venv", "__pycache__", ".git", "node_modules", ".swetui"):
        assert never not in structure
    assert "- `swetui/cli.py`: Command line:" in text
    assert "`swetui` → `swetui.cli:main`" in text and "`python -m swetui`" in text
    assert "- test: `python -m pytest`" in text and "- lint: `ruff check .`" in text
    assert "textual>=" in text
    assert any(step.startswith("scanning") for step in steps)
    assert any(step.startswith("reading key files") for step in steps)


def test_a_node_project_gets_its_scripts_and_the_readme_commands(tmp_path: Path):
    (tmp_path / "package.json").write_text(
        '{"name": "widget", "description": "Renders widgets. Fast.", "bin": {"widget": '
        '"bin/cli.js"}, "scripts": {"test": "jest", "lint": "eslint ."}, '
        '"dependencies": {"react": "^18"}}')
    (tmp_path / "README.md").write_text(
        "# Widget\n\n[![ci](x)](y)\n\nWidget draws things on a canvas. It is small\n"
        "and fast.\n\n## Development\n\n```sh\n$ npm install\n$ npm run build:docs\n```\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "index.js").write_text("// The widget entry point.\nexport {};\n")
    (tmp_path / "node_modules" / "react").mkdir(parents=True)
    (tmp_path / "node_modules" / "react" / "index.js").write_text("x")
    text = build_project_memory(tmp_path)
    assert text.startswith("# widget: project memory")
    assert "Widget draws things on a canvas. It is small and fast." in text
    assert "`npm run test`: `jest`" in text and "- test: `npm test`" in text
    assert "from the README: `npm run build:docs`" in text
    assert "- `src/index.js`: The widget entry point." in text
    assert "node_modules" not in text and "react" in text  # a dependency, not a folder


async def test_cancelling_writes_nothing(tmp_path: Path):
    (tmp_path / "a.py").write_text('"""A module."""\n')
    stop = threading.Event()
    with pytest.raises(Cancelled):
        await write_project_memory(tmp_path, progress=lambda _: stop.set(), stop=stop)
    assert not (tmp_path / "SWETUI.md").exists()


async def test_esc_cancels_the_sessions_init_and_nothing_is_written(workspace: Path):
    session = AgentSession.open(LaunchOptions(path=workspace, watch=False), env={})
    with pytest.raises(Cancelled):
        await session.init_memory(progress=lambda _: session.cancel())
    assert not (workspace / "SWETUI.md").exists() and not session.busy
    outcome = await session.init_memory()
    assert outcome.written_by == "a structural scan" and "mem:SWETUI.md" in session.engine
    with pytest.raises(MemoryExists):
        await session.init_memory()
    await session.aclose()


async def test_a_configured_model_writes_it_from_the_scan(workspace: Path):
    server = LoopbackServer()
    await server.start()
    written = "# demo\n\n## Overview\n\nA demo project, as the model puts it.\n"
    server.script(answer(written))
    provider = create_provider("openai:m", {"OPENAI_BASE_URL": f"{server.url}/v1"}, timeout=30)
    try:
        outcome = await write_project_memory(workspace, progress=lambda _: None,
                                             model="openai:m", provider=provider)
    finally:
        await provider.aclose()
        await server.stop()
    assert (workspace / "SWETUI.md").read_text() == written
    assert outcome.written_by == "openai:m" and outcome.note is None
    sent = server.requests[0].json["messages"]
    assert "SWETUI.md" in sent[0]["content"] and "## Structure" in sent[-1]["content"]


async def test_a_failing_model_leaves_the_structural_scan(workspace: Path):
    server = LoopbackServer()
    await server.start()
    server.script(json_reply(400, {"error": {"message": "model not found"}}))
    provider = create_provider("openai:m", {"OPENAI_BASE_URL": f"{server.url}/v1"}, timeout=30)
    try:
        outcome = await write_project_memory(workspace, progress=lambda _: None,
                                             model="openai:m", provider=provider)
    finally:
        await provider.aclose()
        await server.stop()
    assert outcome.written_by == "a structural scan" and "model not found" in (outcome.note
                                                                                 or "")
    assert "## Structure" in (workspace / "SWETUI.md").read_text()


def test_swetui_init_asks_before_replacing(workspace: Path, capsys: pytest.CaptureFixture[str]):
    target = workspace / "SWETUI.md"
    target.write_text("# mine\n")
    questions: list[str] = []
    options = LaunchOptions(path=workspace, model="offline")
    assert init_memory_file(options, ask=lambda q: questions.append(q) or False) == 1
    assert target.read_text() == "# mine\n" and "Replace it? [y/N]" in questions[0]
    assert "left as it is" in capsys.readouterr().err
    assert init_memory_file(options) == 1  # no terminal to ask on: never replaced
    assert init_memory_file(options, ask=lambda _: True) == 0
    assert "## Structure" in target.read_text()
    captured = capsys.readouterr()
    assert "swetui init: scanning" in captured.err and "Wrote" in captured.out

