"""A local model in the workspace: `/model` lists what its server offers, and a turn whose
server reported no usage says its token figures are estimates."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.widgets.transcript_entries import CompletionLine, NoticeLine
from tests.providers.loopback import LoopbackServer, json_reply, sse
from tests.providers.test_openai import chunk
from tests.ui.waits import record_events, slash, submit, wait_idle


def _notices(app: SweTuiApp) -> str:
    return "\n".join(str(widget.render()) for widget in app.screen.transcript.query(NoticeLine))


async def test_slash_model_lists_the_server_s_models(demo: Path) -> None:
    server = LoopbackServer()
    server.routes[("GET", "/api/tags")] = json_reply(
        200, {"models": [{"name": "llama3.2:latest"}, {"name": "qwen2.5-coder:7b"}]})
    await server.start()
    options = LaunchOptions(path=demo, model="offline", watch=False)
    session = AgentSession.open(options, env={"OLLAMA_HOST": server.url})
    app = SweTuiApp(session, options=options, watch=False)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await slash(pilot, "/model ollama:")
            assert "The ollama server offers: llama3.2:latest, qwen2.5-coder:7b" in \
                _notices(app)
            await slash(pilot, "/model")
            assert "Model: offline" in _notices(app)
    finally:
        await server.stop()


async def test_a_turn_without_usage_says_its_figures_are_estimated(demo: Path) -> None:
    server = LoopbackServer()
    server.script(sse(chunk({"content": "Hi there."}), chunk(finish="stop"), "data: [DONE]\n\n"))
    await server.start()
    options = LaunchOptions(path=demo, model="openai:local", watch=False)
    session = AgentSession.open(options, env={"OPENAI_BASE_URL": f"{server.url}/v1"})
    record_events(session)
    app = SweTuiApp(session, options=options, watch=False)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await submit(pilot, "hello")
            await wait_idle(app, pilot)
            [done] = [str(w.render()) for w in app.screen.transcript.query(CompletionLine)]
            assert "✓ Done" in done and "(estimated)" in done and "↑~" in done
            assert session.stats()["usage_measured"] is False
    finally:
        await server.stop()
