"""`/model` in the workspace lists what the model's server offers."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.widgets.transcript_entries import NoticeLine
from tests.providers.loopback import LoopbackServer, json_reply
from tests.ui.waits import slash


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
