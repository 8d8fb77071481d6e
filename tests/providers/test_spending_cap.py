"""The spending cap (issue 11, item 7), against a real Anthropic-protocol server on loopback
reporting usage the way Anthropic does: a model call that would take the session past
`spending_cap` is not sent by `swetui run` (exit 3, a message saying why, the question kept
in the session), and the screen's question (`SpendingCap.ask`) lets it through for the turn.

The costs the test relies on come from the server's reported usage at Sonnet 4.5's prices
(genai-prices: $3/M input, $15/M output): the first answer reports 100,000 input tokens, so
the session has spent $0.30 after it, while any one call this small session can make costs
well under $0.05 (a few thousand prompt tokens and the 1,000-token answer allowance)."""

from __future__ import annotations

import json
from pathlib import Path

from swetui.agent.session import AgentSession
from swetui.agent.spending import SpendCheck
from swetui.options import LaunchOptions
from swetui.providers.anthropic import AnthropicProvider
from swetui.ui.app import SweTuiApp
from swetui.ui.screens.spending_question import SpendingQuestion
from tests.headless import environment, run
from tests.providers.helpers import API_KEY
from tests.providers.loopback import LoopbackServer, sse
from tests.providers.test_anthropic import block_start, block_stop, delta, message_end
from tests.providers.test_usage import anthropic_start, text_block
from tests.ui.screen_text import screen_text
from tests.ui.waits import submit, until

MODEL = "anthropic:claude-sonnet-4-5"


def expensive_tool_call() -> str:
    """A call of list_dir, reported as 100,000 input tokens ($0.30 at Sonnet's price)."""
    return sse(anthropic_start({"input_tokens": 100_000, "output_tokens": 1}),
               block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "list_dir",
                               "input": {}}),
               delta(0, {"type": "input_json_delta", "partial_json": "{}"}), block_stop(0),
               *message_end("tool_use", 10))


def answer(text: str) -> str:
    return sse(anthropic_start({"input_tokens": 2_000, "output_tokens": 1}),
               *text_block(text), *message_end("end_turn", 5))


def open_capped(workspace: Path, server: LoopbackServer, config_home: Path,
                cap: float) -> AgentSession:
    config = config_home / "swetui" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"spending_cap = {cap}\n")
    provider = AnthropicProvider("claude-sonnet-4-5", base_url=server.url, api_key=API_KEY,
                                 timeout=10)
    return AgentSession.open(LaunchOptions(path=workspace, model=MODEL), env={},
                             provider=provider)


async def test_a_call_past_the_cap_is_not_sent_and_the_question_is_kept(
        workspace: Path, server: LoopbackServer, isolated_config: Path) -> None:
    server.script(expensive_tool_call(), answer("never sent"))
    session = open_capped(workspace, server, isolated_config, 0.10)
    try:
        finished = await session.send("list the files")
        # The first call ($0.30 as reported) went; the one after its tool result would have
        # taken the session past $0.10, so it was not sent.
        assert len(server.requests) == 1
        assert finished.error is not None and "spending cap of $0.1000" in finished.error
        assert "spent so far" in finished.error and "your message is kept" in finished.error
        stopped = session.spending.stopped
        assert stopped is not None and stopped.spent.usd is not None
        assert abs(stopped.spent.usd - (100_000 * 3 + 10 * 15) / 1e6) < 1e-9
        texts = [item.content for item in session.engine]
        assert "list the files" in texts  # nothing lost: the question and the tool's result
        assert any("README.md" in text for text in texts)
    finally:
        await session.aclose()


async def test_the_screen_asks_and_a_yes_lets_the_turn_through(
        workspace: Path, server: LoopbackServer, isolated_config: Path) -> None:
    server.script(expensive_tool_call(), answer("done"), answer("next turn"))
    session = open_capped(workspace, server, isolated_config, 0.10)
    asked: list[SpendCheck] = []

    async def yes(check: SpendCheck) -> bool:
        asked.append(check)
        return True

    session.spending.ask = yes
    try:
        finished = await session.send("list the files")
        assert finished.error is None and len(server.requests) == 2
        assert len(asked) == 1 and asked[0].cap == 0.10
        # Past the cap, the next turn asks again before its first call.
        await session.send("and again")
        assert len(asked) == 2 and len(server.requests) == 3
    finally:
        await session.aclose()


async def test_under_the_cap_nothing_asks(workspace: Path, server: LoopbackServer,
                                          isolated_config: Path) -> None:
    server.script(expensive_tool_call(), answer("done"))
    session = open_capped(workspace, server, isolated_config, 5.0)
    try:
        finished = await session.send("list the files")
        assert finished.error is None and len(server.requests) == 2
        assert session.spending.stopped is None
    finally:
        await session.aclose()


async def test_swetui_run_stops_before_the_call_with_exit_code_3(
        workspace: Path, server: LoopbackServer, isolated_config: Path) -> None:
    config = isolated_config / "swetui" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("spending_cap = 0.10\n")
    server.script(expensive_tool_call(), answer("never sent"))
    env = environment(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY=API_KEY)
    code, out, err = await run("list the files", workspace, env, "--model", MODEL, "--yes")
    assert code == 3, err
    assert len(server.requests) == 1
    assert b"spending cap of $0.1000" in err and b"your message is kept" in err
    log = next((workspace / ".swetui" / "sessions").glob("*.jsonl"))
    assert "list the files" in log.read_text()
    assert json.loads(log.read_text().splitlines()[0])  # the log is whole


async def test_the_screen_asks_before_the_call_and_esc_does_not_send_it(
        workspace: Path, server: LoopbackServer, isolated_config: Path) -> None:
    server.script(expensive_tool_call(), answer("sent after a yes"), expensive_tool_call())
    session = open_capped(workspace, server, isolated_config, 0.10)
    app = SweTuiApp(session, options=LaunchOptions(path=workspace, model=MODEL), watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "list the files")
        await until(pilot, lambda: isinstance(app.screen, SpendingQuestion), "the question")
        text = screen_text(app)
        assert "Past the spending cap of $0.1000?" in text and "send anyway" in text
        assert len(server.requests) == 1  # asked before the second call, not after
        await pilot.press("enter")
        await until(pilot, lambda: "sent after a yes" in screen_text(app), "the answer")
        assert len(server.requests) == 2
        await submit(pilot, "once more")
        await until(pilot, lambda: isinstance(app.screen, SpendingQuestion), "asked again")
        await pilot.press("escape")
        await until(pilot, lambda: "Not sent" in screen_text(app), "said it was not sent")
        assert len(server.requests) == 2
        assert "once more" in [item.content for item in session.engine]
