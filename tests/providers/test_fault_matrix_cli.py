"""The fault matrix as `swetui run` shows it: a real process talking to the loopback server,
per protocol — its exit code, the one line on stderr, what stdout kept, never a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.providers.helpers import API_KEY
from tests.providers.loopback import LoopbackServer
from tests.providers.wire import WIRES, Wire

pytestmark = pytest.mark.parametrize("wire", WIRES, ids=str)


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


async def swetui_run(wire: Wire, url: str, workspace: Path, prompt: str = "hi") -> Run:
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and key != "SWETUI_MODEL"}
    env.update(wire.env(url))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "swetui", "run", prompt, "--model", wire.model, cwd=workspace,
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    result = Run(process.returncode, out.decode(), err.decode())
    assert "Traceback" not in result.stderr, result.stderr
    assert API_KEY not in result.stdout + result.stderr
    (log,) = (workspace / ".swetui" / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["text"] for e in events if e["type"] == "turn_started"] == [prompt]
    assert API_KEY not in log.read_text()
    return result


async def test_refused(wire: Wire, workspace: Path, refused_port: int) -> None:
    host = f"127.0.0.1:{refused_port}"
    run = await swetui_run(wire, f"http://{host}", workspace)
    assert run.returncode == 1
    assert run.stderr.startswith(f"swetui: {wire}: cannot connect to {host}")
    assert "gave up after 3 attempts" in run.stderr and "failed in" in run.stdout


async def test_401(wire: Wire, workspace: Path, server: LoopbackServer) -> None:
    # Servers echo (part of) the key they refused; Ollama is sent none.
    server.script(wire.error(401, "invalid key" + ("" if wire.name == "ollama" else f" {API_KEY}")))
    run = await swetui_run(wire, server.url, workspace)
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1].startswith(f"swetui: {wire}: 401 Unauthorized")
    assert len(server.requests) == 1


async def test_long_retry_after_is_reported_at_once(wire: Wire, workspace: Path,
                                                    server: LoopbackServer) -> None:
    server.script(wire.error(429, "rate limited", {"retry-after": "300"}))
    run = await swetui_run(wire, server.url, workspace)
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1] == (
        f"swetui: {wire}: 429 Too Many Requests: rate limited; the server asks to wait "
        "300s (5 min) before another request: try again later")
    assert len(server.requests) == 1


async def test_cut_stream(wire: Wire, workspace: Path, server: LoopbackServer) -> None:
    opening = wire.opening()
    server.script(wire.stream(*opening, wire.text("Half an "), wire.text("answer"),
                              wire.text(" and more"), *wire.closing(),
                              drop_after=len(opening) + 2))
    run = await swetui_run(wire, server.url, workspace)
    assert run.returncode == 1
    assert run.stdout.startswith("Half an answer\n")
    assert "interrupted" in run.stdout  # the closing line says the turn was cut short
    assert run.stderr.startswith(f"swetui: {wire}: the answer was interrupted")

