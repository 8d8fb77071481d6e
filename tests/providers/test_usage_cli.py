"""`swetui run` prints the turn's normalised usage and cost on its done line, and `swetui
sessions` lists the session's cost (a real process, a loopback Anthropic server reporting
cache reads and writes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.commands.sessions import show_sessions
from tests.headless import environment, run
from tests.providers.helpers import API_KEY
from tests.providers.loopback import LoopbackServer, sse
from tests.providers.test_anthropic import message_end
from tests.providers.test_usage import anthropic_start, text_block


async def test_done_line_shows_cache_reads_and_writes_and_the_cost(
        workspace: Path, server: LoopbackServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.script(sse(
        anthropic_start({"input_tokens": 40, "cache_creation_input_tokens": 1_500,
                         "cache_read_input_tokens": 48_000, "output_tokens": 1}),
        *text_block("Hello."), *message_end("end_turn", 77)))
    env = environment(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY=API_KEY)
    code, out, err = await run("hi", workspace, env, "--model", "anthropic:claude-sonnet-4-5")
    assert code == 0, err
    done = out.decode().strip().splitlines()[-1]
    assert done.startswith("done in")
    # Sonnet 4.5 as genai-prices has it: $3/M fresh, $0.30/M read, $3.75/M written, $15/M out.
    assert done.endswith("↑49,540 ↓77 tokens (48,000 cached, 1,500 written to cache) · $0.0213")
    assert show_sessions(workspace) == 0
    listing = capsys.readouterr().out.splitlines()[0]
    assert " $0.0213  (run) hi" in listing
