"""Each model call's normalised usage is kept in the session log, summed per turn and in
/stats, and estimated (and marked so) when the provider reported none."""

from __future__ import annotations

import asyncio
import json

from swetui.agent.cost import UNKNOWN
from swetui.agent.session import AgentSession
from swetui.agent.turn_events import ModelCallFinished, ModelCallStarted
from swetui.commands.context import show_context
from swetui.commands.sessions import show_sessions
from swetui.options import LaunchOptions
from swetui.providers.events import Done, TextDelta
from swetui.providers.usage import Usage

from .scripted import ScriptedProvider, calls

CACHED = Usage(input_tokens=12_000, cache_read_tokens=10_000, cache_write_tokens=1_500,
               output_tokens=80, reasoning_tokens=30)


def open_session(root, provider, **options) -> AgentSession:
    return AgentSession.open(LaunchOptions(path=root, **options), env={}, provider=provider)


def reply(text: str, usage: Usage | None) -> list:
    return [TextDelta(text=text), *([usage] if usage else []), Done()]


async def test_usage_of_every_call_is_logged_summed_per_turn_and_in_stats(workspace):
    first = Usage(input_tokens=9_000, cache_write_tokens=8_000, output_tokens=20)
    provider = ScriptedProvider([*calls(("c1", "list_dir", {}))[:-1], first, Done(
        stop_reason="tool_calls")], reply("Two files.", CACHED), reply("Again.", CACHED))
    session = open_session(workspace, provider)
    seen = []
    session.bus.subscribe(seen.append, ModelCallFinished)
    finished = await session.send("list files")
    assert finished.usage == first + CACHED
    assert (finished.input_tokens, finished.output_tokens) == (21_000, 100)
    assert [event.usage for event in seen] == [first, CACHED]
    await session.send("and again")
    stats = session.stats()
    assert (stats["input_tokens"], stats["cache_read_tokens"], stats["cache_write_tokens"],
            stats["output_tokens"], stats["reasoning_tokens"]) == (33_000, 20_000, 11_000,
                                                                   180, 60)
    assert stats["usage_measured"] is True
    log = session.workspace.store.path
    session.workspace.close()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    stored = [record["usage"] for record in records if record["type"] == "model_call"]
    assert stored[1] == CACHED.model_dump(mode="json")


async def test_a_provider_that_reports_nothing_gets_an_estimate_marked_as_one(workspace):
    provider = ScriptedProvider(reply("An answer of a few words.", None))
    session = open_session(workspace, provider)
    started = []
    session.bus.subscribe(started.append, ModelCallStarted)
    finished = await session.send("hello")
    usage = finished.usage
    assert usage is not None and not usage.measured
    assert usage.input_tokens == started[0].input_tokens > 0  # the assembled request
    assert usage.output_tokens == session.engine.counter.count("An answer of a few words.")
    assert session.engine.calibration() is None  # an estimate never calibrates
    assert session.stats()["usage_measured"] is False


async def test_an_old_log_without_usage_records_still_loads_and_sums(workspace, capsys):
    session = open_session(workspace, ScriptedProvider(reply("hi", CACHED)),
                           model="anthropic:claude-sonnet-4-5")
    await session.send("hello")
    path = session.workspace.store.path
    session_id = session.session_id
    await session.aclose()
    # The shape logs had before usage was kept: no "usage" in model_call or turn_finished.
    old = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        record.pop("usage", None)
        record.pop("cost", None)
        old.append(json.dumps(record))
    path.write_text("\n".join(old) + "\n")
    again = open_session(workspace, ScriptedProvider(), resume=session_id,
                         model="anthropic:claude-sonnet-4-5")
    stats = again.stats()
    assert (stats["input_tokens"], stats["output_tokens"]) == (12_000, 80)
    assert stats["cache_read_tokens"] == 0
    # Priced now, as uncached input (all an old log knows): 12,000 × $3/M + 80 × $15/M.
    assert stats["cost"] == "$0.0372"
    # `swetui sessions` lists only recorded costs: this one has none.
    assert show_sessions(workspace) == 0
    assert "        ?  hello" in capsys.readouterr().out
    finished = [event for event in again.transcript() if type(event).__name__ == "TurnFinished"]
    assert finished and finished[0].usage is None and finished[0].input_tokens == 12_000


async def test_each_turn_is_priced_and_an_unknown_model_says_so(workspace):
    priced = open_session(workspace, ScriptedProvider(reply("hi", CACHED)),
                          model="anthropic:claude-sonnet-4-5")
    finished = await priced.send("hello")
    # 500 fresh × $3 + 10,000 read × $0.30 + 1,500 written × $3.75 + 80 out × $15, per million.
    assert finished.cost is not None and finished.cost.basis == "genai-prices"
    assert round(finished.cost.usd or 0, 6) == 0.011325
    assert priced.stats()["cost"] == "$0.0113"
    await priced.aclose()
    unknown = open_session(workspace, ScriptedProvider(reply("hi", CACHED)),
                           model="openai:my-private-finetune")
    finished = await unknown.send("hello")
    assert finished.cost == UNKNOWN and finished.usage == CACHED  # the tokens are still there
    assert unknown.stats()["cost"] == "price unknown"


async def test_a_price_set_in_the_user_config_prices_the_turn(workspace, isolated_config):
    config = isolated_config / "swetui" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[prices."openai:my-finetune"]\ninput = 2.0\noutput = 8.0\n'
                      "cache_read = 0.5\n")
    session = open_session(workspace, ScriptedProvider(reply("hi", CACHED)),
                           model="openai:my-finetune")
    finished = await session.send("hello")
    # 500 fresh × $2 + 10,000 read × $0.50 + 1,500 written × $2 (input) + 80 out × $8.
    assert finished.cost is not None and finished.cost.basis == "config"
    assert round(finished.cost.usd or 0, 6) == 0.00964


async def test_context_json_has_the_expected_cached_prefix_and_the_last_turn(workspace,
                                                                             capsys):
    model = "anthropic:claude-sonnet-4-5"
    # Enough memory that the prefix passes the 1,024 tokens a provider caches at least.
    (workspace / "AGENTS.md").write_text("".join(f"- rule {n}: keep it tidy\n"
                                                 for n in range(200)))
    session = open_session(workspace, ScriptedProvider(reply("hi", CACHED)), model=model)
    await session.send("hello")
    await session.aclose()
    capsys.readouterr()
    # The command runs its own event loop (it asks MCP servers): not on this test's loop.
    assert await asyncio.to_thread(
        show_context, LaunchOptions(path=workspace, model=model, continue_last=True),
        as_json=True) == 0
    report = json.loads(capsys.readouterr().out)
    last = report["last_turn"]
    assert last["turn"] == 1 and last["usage"]["cache_read_tokens"] == 10_000
    assert last["usage"]["fresh_input_tokens"] == 500
    assert round(last["cost_usd"], 6) == 0.011325 and last["cost"] == "$0.0113"
    cache = report["cache"]
    # Sent seconds ago: what turn 1 cached (everything up to its question) is read back.
    assert cache["state"] == "warm" and cache["expected_cached_tokens"] > 1_024
    assert cache["fresh_tokens"] > 0  # turn 1's answer, the notes: new since
    assert cache["stable_prefix_tokens"] > cache["expected_cached_tokens"]
    # Another model has nothing of this cache.
    assert await asyncio.to_thread(
        show_context, LaunchOptions(path=workspace, model="anthropic:claude-opus-4-1",
                                    continue_last=True), as_json=True) == 0
    assert json.loads(capsys.readouterr().out)["cache"]["state"] == "other-model"
