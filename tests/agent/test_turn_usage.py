"""Each model call's normalised usage is kept in the session log, summed per turn and in
/stats, and estimated (and marked so) when the provider reported none."""

from __future__ import annotations

import json

from swetui.agent.session import AgentSession
from swetui.agent.turn_events import ModelCallFinished, ModelCallStarted
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


async def test_an_old_log_without_usage_records_still_loads_and_sums(workspace):
    session = open_session(workspace, ScriptedProvider(reply("hi", CACHED)))
    await session.send("hello")
    path = session.workspace.store.path
    session_id = session.session_id
    await session.aclose()
    # The shape logs had before usage was kept: no "usage" in model_call or turn_finished.
    old = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        record.pop("usage", None)
        old.append(json.dumps(record))
    path.write_text("\n".join(old) + "\n")
    again = open_session(workspace, ScriptedProvider(), resume=session_id)
    stats = again.stats()
    assert (stats["input_tokens"], stats["output_tokens"]) == (12_000, 80)
    assert stats["cache_read_tokens"] == 0
    finished = [event for event in again.transcript() if type(event).__name__ == "TurnFinished"]
    assert finished and finished[0].usage is None and finished[0].input_tokens == 12_000
