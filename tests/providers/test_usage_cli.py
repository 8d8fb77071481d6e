"""`swetui run` prints the turn's normalised usage on its done line (a real process, a
loopback Anthropic server reporting cache reads and writes)."""

from __future__ import annotations

from pathlib import Path

from tests.providers.loopback import LoopbackServer, sse
from tests.providers.test_anthropic import message_end
from tests.providers.test_fault_matrix_cli import swetui_run
from tests.providers.test_usage import anthropic_start, text_block
from tests.providers.wire import Wire


async def test_done_line_shows_cache_reads_and_writes(workspace: Path,
                                                      server: LoopbackServer) -> None:
    server.script(sse(
        anthropic_start({"input_tokens": 40, "cache_creation_input_tokens": 1_500,
                         "cache_read_input_tokens": 48_000, "output_tokens": 1}),
        *text_block("Hello."), *message_end("end_turn", 77)))
    run = await swetui_run(Wire("anthropic"), server.url, workspace)
    assert run.returncode == 0, run.stderr
    done = run.stdout.strip().splitlines()[-1]
    assert done.startswith("done in")
    assert "↑49,540 ↓77 tokens (48,000 cached, 1,500 written to cache)" in done
