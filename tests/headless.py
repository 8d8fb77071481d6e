"""`swetui run` as a subprocess, talking to a scripted OpenAI-compatible model on loopback:
the model can then say and call anything (escape sequences, hostile regexes, odd names)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.providers.loopback import LoopbackServer, Reply, sse


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}


def answer(text: str, reasoning: str = "") -> Reply:
    """A streamed answer (with reasoning first, when given)."""
    events: list[Any] = []
    if reasoning:
        events.append(_chunk({"reasoning_content": reasoning}))
    events += [_chunk({"content": text}), _chunk(finish="stop"), "data: [DONE]\n\n"]
    return sse(*events)


def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> Reply:
    """One streamed tool call."""
    fragment = {"index": 0, "id": call_id, "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}
    return sse(_chunk({"tool_calls": [fragment]}), _chunk(finish="tool_calls"),
               "data: [DONE]\n\n")


def environment(server: LoopbackServer | None = None, **extra: str) -> dict[str, str]:
    """The test's environment without keys or proxies, pointed at `server` when given."""
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and key not in ("SWETUI_MODEL", "OPENAI_BASE_URL")
           and "proxy" not in key.lower()}
    if server is not None:
        env.update(OPENAI_BASE_URL=f"{server.url}/v1", SWETUI_MODEL="openai:m")
    env.update(extra)
    return env


async def start(prompt: str, cwd: Path, env: dict[str, str],
                *args: str) -> asyncio.subprocess.Process:
    """`swetui run PROMPT` started with its output on pipes."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "swetui", "run", prompt, *args, cwd=cwd, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)


async def run(prompt: str, cwd: Path, env: dict[str, str], *args: str,
              timeout: float = 120) -> tuple[int, bytes, bytes]:
    """`swetui run PROMPT`: (exit code, stdout, stderr) as raw bytes."""
    process = await start(prompt, cwd, env, *args)
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
        raise AssertionError(f"swetui run did not finish: {out!r} {err!r}") from None
    assert process.returncode is not None
    return process.returncode, out, err
