"""What the session learns from a local server's side doors (llama.cpp `/props` and
`/tokenize`, llama-cpp-python `/extras/tokenize`, Ollama `/api/show`), on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swetui.agent.calibrations import CalibrationStore
from swetui.agent.session import AgentSession
from swetui.agent.turn_events import ModelCallStarted
from swetui.engine.budget import BudgetSettings, make_budget
from swetui.engine.events import CompactionFinished, EngineNotice
from swetui.engine.items import Layer
from swetui.engine.tokens import TokenCounter
from swetui.options import LaunchOptions
from swetui.paths import user_config_file
from swetui.providers.ollama import OllamaProvider
from swetui.providers.openai import OpenAIProvider
from tests.agent.test_local_models import said
from tests.providers.loopback import LoopbackServer, Received, Reply, json_reply

COUNTER = TokenCounter()


def tokenizer(ratio: float, field: str):
    """A tokenize endpoint whose tokenizer counts `ratio` tokens per estimated one."""
    def answer(request: Received) -> Reply:
        count = round(COUNTER.count(request.json[field]) * ratio)
        return json_reply(200, {"tokens": list(range(count))})
    return answer


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    srv = LoopbackServer()
    srv.script_path = "/v1/chat/completions"
    srv.script(said("Hello."))
    await srv.start()
    yield srv
    await srv.stop()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "notes.txt").write_text("nothing here\n")
    return root


def open_session(root: Path, provider, **options) -> AgentSession:
    return AgentSession.open(LaunchOptions(path=root, model="openai:local", **options),
                             env={}, provider=provider)


def llama_cpp(server: LoopbackServer) -> OpenAIProvider:
    return OpenAIProvider("local", base_url=f"{server.url}/v1")


async def test_the_window_and_the_calibration_come_from_llama_server(server, repo):
    server.routes[("GET", "/props")] = json_reply(
        200, {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1})
    server.routes[("POST", "/tokenize")] = tokenizer(1.25, "content")
    session = open_session(repo, llama_cpp(server))
    notices: list[EngineNotice] = []
    session.bus.subscribe(notices.append, EngineNotice)
    try:
        finished = await session.send("hello")
    finally:
        await session.aclose()
    assert finished.error is None
    budget = session.engine.budget()
    assert budget.limit == 8192 and budget.reserve == 8192 // 6
    assert budget.calibration == pytest.approx(1.25, abs=0.02)
    assert budget.calibration_source == "/tokenize"
    assert budget.counted == round(budget.total * budget.calibration)
    said_so = " ".join(notice.message for notice in notices)
    assert "8,192 tokens, from the server" in said_so and "×1.25" in said_so
    assert server.requests[0].json["max_tokens"] == 8192 // 6
    # Stored per model: the next session of this model starts calibrated, before any request.
    again = open_session(repo, llama_cpp(server))
    try:
        assert again.engine.calibration() == pytest.approx(1.25, abs=0.02)
        await again.send("hello again")
    finally:
        await again.aclose()
    assert len([r for r in server.side_requests if r.path == "/tokenize"]) == 1
    assert CalibrationStore().get("openai:local") is not None


async def test_an_estimated_input_figure_is_the_calibrated_one(server, repo):
    # No usage comes: the turn's input figure is swetui's estimate of the request, corrected
    # by the server tokenizer's ratio (1.25), not the raw estimate.
    server.routes[("POST", "/tokenize")] = tokenizer(1.25, "content")
    session = open_session(repo, llama_cpp(server))
    started: list[ModelCallStarted] = []
    session.bus.subscribe(started.append, ModelCallStarted)
    try:
        finished = await session.send("hello")
    finally:
        await session.aclose()
    ratio = session.engine.calibration()
    assert ratio == pytest.approx(1.25, abs=0.02)
    assert finished.usage is not None and not finished.usage.measured
    assert finished.usage.input_tokens == round(started[0].input_tokens * ratio)
    assert started[0].input_tokens > 100


async def test_llama_cpp_python_s_extras_tokenize_is_used_when_there_is_no_tokenize(server,
                                                                                    repo):
    server.routes[("POST", "/extras/tokenize")] = tokenizer(0.8, "input")
    session = open_session(repo, llama_cpp(server))
    try:
        await session.send("hello")
    finally:
        await session.aclose()
    assert session.engine.calibration_source() == "/extras/tokenize"
    assert session.engine.calibration() == pytest.approx(0.8, abs=0.02)
    assert session.engine.settings.limit == 256_000  # no /props: the default window


async def test_ollama_s_num_ctx_is_the_window(server, repo):
    server.routes[("POST", "/api/show")] = json_reply(200, {
        "parameters": "stop \"<|im_end|>\"\nnum_ctx 6144\ntemperature 0.7",
        "model_info": {"qwen2.context_length": 32768}})
    provider = OllamaProvider("qwen2.5-coder", host=server.url)
    session = AgentSession.open(LaunchOptions(path=repo, model="ollama:qwen2.5-coder"),
                                env={}, provider=provider)
    try:
        await session.send("hello")
    finally:
        await session.aclose()
    assert session.engine.settings.limit == 6144
    assert [r.json["model"] for r in server.side_requests if r.path == "/api/show"] == \
        ["qwen2.5-coder"]


async def test_the_user_s_window_wins_over_the_server_s(server, repo):
    server.routes[("GET", "/props")] = json_reply(200, {"n_ctx": 4096})
    session = open_session(repo, llama_cpp(server), context_limit=32_000)
    try:
        await session.send("hello")
    finally:
        await session.aclose()
    assert session.engine.settings.limit == 32_000
    assert not [r for r in server.side_requests if r.path == "/props"]


async def test_a_server_window_too_small_refuses_the_turn_with_the_numbers(server, repo):
    server.routes[("GET", "/props")] = json_reply(200, {"n_ctx": 1024})
    session = open_session(repo, llama_cpp(server))
    try:
        finished = await session.send("hello")
    finally:
        await session.aclose()
    assert finished.error is not None and "1,024 tokens is too small" in finished.error
    assert not server.requests  # the model was never asked


def test_the_threshold_uses_the_calibrated_figure():
    settings = BudgetSettings(limit=10_000, threshold=0.8, reserve=1_000)
    raw = make_budget({Layer.HISTORY: 7_000}, settings)
    calibrated = make_budget({Layer.HISTORY: 7_000}, settings, calibration=1.2,
                             calibration_source="/tokenize")
    assert not raw.needs_compaction and calibrated.needs_compaction
    assert calibrated.counted == 8_400 and calibrated.percent == pytest.approx(84.0)
    assert calibrated.free == 600


async def test_the_calibrated_figure_triggers_compaction_where_the_estimate_would_not(
        server, repo):
    # The server's tokenizer counts 1.6 tokens per estimated one: by its count the request
    # passes the threshold long before swetui's estimate does.
    server.routes[("POST", "/tokenize")] = tokenizer(1.6, "content")
    config = user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('compaction_model = "offline"\ncompaction_threshold = 0.5\n')
    session = open_session(repo, llama_cpp(server), context_limit=6_000)
    compactions: list[CompactionFinished] = []
    session.bus.subscribe(compactions.append, CompactionFinished)
    highest = 0
    try:
        for turn in range(8):
            await session.send(f"turn {turn}: " + "explain the design in detail " * 40)
            budget = session.engine.budget()
            highest = max(highest, budget.total)
            if compactions:
                break
    finally:
        await session.aclose()
    assert compactions, "no automatic compaction"
    # Compacted while swetui's own estimate was still under the threshold (3,000).
    assert highest < 3_000 and compactions[0].tokens_before < 3_000
    assert session.engine.budget().calibration == pytest.approx(1.6, abs=0.03)
