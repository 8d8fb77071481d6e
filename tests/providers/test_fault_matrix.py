"""The fault matrix: each way a model back end fails, for each protocol, through a real
session talking HTTP to a loopback server.

Each test asserts what the user is shown (the turn's error, which `swetui run` prints and the
workspace shows), that the user's message survives on disk (reopening the session finds it),
and how often the server was asked (a retry where it helps, none where it would not).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest

from swetui.agent.session import AgentSession
from swetui.agent.turn_events import TurnFinished
from swetui.engine.items import ItemKind
from swetui.options import LaunchOptions
from swetui.providers import create_provider
from swetui.providers.resilience import CircuitBreaker
from tests.providers.helpers import API_KEY
from tests.providers.loopback import FakeClock, LoopbackServer, RecordedSleeps
from tests.providers.wire import WIRES, Wire

pytestmark = pytest.mark.parametrize("wire", WIRES, ids=str)

Opener = Callable[..., AgentSession]
PROMPT = "explain the build"


@pytest.fixture
async def open_session(workspace: Path, sleeps: RecordedSleeps,
                       clock: FakeClock) -> AsyncIterator[Opener]:
    """Open a session whose provider talks to `url` in `wire`'s protocol; closed after."""
    opened: list[AgentSession] = []

    def make(wire: Wire, url: str, *, timeout: float = 10.0) -> AgentSession:
        env = wire.env(url)
        provider = create_provider(wire.model, env, timeout=timeout, sleep=sleeps,
                                   breaker=CircuitBreaker(clock=clock))
        session = AgentSession.open(LaunchOptions(path=workspace, model=wire.model, watch=False),
                                    env=env, provider=provider)
        opened.append(session)
        return session

    yield make
    for session in opened:
        await session.aclose()


def log_events(workspace: Path, session: AgentSession) -> list[dict[str, Any]]:
    path = workspace / ".swetui" / "sessions" / f"{session.session_id}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_nothing_lost(workspace: Path, session: AgentSession, finished: TurnFinished,
                        prompts: tuple[str, ...] = (PROMPT,)) -> None:
    """The log records the turn and its outcome; reopening it brings the user's words back."""
    events = log_events(workspace, session)
    assert [e["text"] for e in events if e["type"] == "turn_started"] == list(prompts)
    ends = [e for e in events if e["type"] == "turn_finished"]
    assert ends[-1]["error"] == finished.error
    reopened = AgentSession.open(LaunchOptions(path=workspace, model="offline", watch=False,
                                               resume=session.session_id), env={})
    said = [item.content for item in reopened.engine if item.kind is ItemKind.USER_MESSAGE]
    assert said == list(prompts)
    if finished.answer:  # a partial answer is kept too, marked as cut short
        kept = [item.content for item in reopened.engine
                if item.kind is ItemKind.ASSISTANT_MESSAGE]
        assert any(content.startswith(finished.answer) for content in kept), kept
    assert API_KEY not in json.dumps(events)


async def sent(open_session: Opener, wire: Wire, url: str,
               **options: Any) -> tuple[AgentSession, TurnFinished]:
    session = open_session(wire, url, **options)
    return session, await session.send(PROMPT)


def host(url: str) -> str:
    return url.removeprefix("http://")


# -- the connection ----------------------------------------------------------------------------


async def test_connection_refused(wire: Wire, open_session: Opener, workspace: Path,
                                  sleeps: RecordedSleeps, refused_port: int) -> None:
    host = f"127.0.0.1:{refused_port}"
    session, finished = await sent(open_session, wire, f"http://{host}")
    assert finished.error == (f"{wire}: cannot connect to {host}: All connection "
                              "attempts failed (gave up after 3 attempts)")
    assert sleeps.delays == [0.5, 1.0]  # retried, with backoff
    assert_nothing_lost(workspace, session, finished)


async def test_no_first_byte(wire: Wire, open_session: Opener, workspace: Path,
                             server: LoopbackServer) -> None:
    server.script(wire.answer("too late", stall=60))
    # 3 s, not less: on a loaded 2-core machine connecting alone can take most of a second;
    # a connect slower still is retried (the message counts it): the model is asked once.
    session, finished = await sent(open_session, wire, server.url, timeout=3.0)
    assert finished.error is not None
    assert finished.error.startswith(f"{wire}: no response from {server.host} within 3s")
    assert len(server.requests) == 1  # a slow model is not asked again and again
    assert_nothing_lost(workspace, session, finished)


# -- HTTP errors -------------------------------------------------------------------------------


async def test_401(wire: Wire, open_session: Opener, workspace: Path,
                   server: LoopbackServer) -> None:
    # Servers echo (part of) the key they refused; Ollama is sent none.
    echoed = "" if wire.name == "ollama" else f" {API_KEY}"
    server.script(wire.error(401, f"invalid key{echoed}"))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error == f"{wire}: 401 Unauthorized: invalid key{echoed and ' ***'}"
    assert len(server.requests) == 1  # a wrong key is not retried
    assert_nothing_lost(workspace, session, finished)


async def test_429_with_retry_after_waits_as_asked(wire: Wire, open_session: Opener,
                                                   workspace: Path, server: LoopbackServer,
                                                   sleeps: RecordedSleeps) -> None:
    server.script(wire.error(429, "slow down", {"retry-after": "7"}), wire.answer("ok now"))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error is None and finished.answer == "ok now"
    assert sleeps.delays == [7.0] and len(server.requests) == 2
    assert_nothing_lost(workspace, session, finished)


async def test_429_without_retry_after_backs_off(wire: Wire, open_session: Opener,
                                                 workspace: Path, server: LoopbackServer,
                                                 sleeps: RecordedSleeps) -> None:
    server.script(wire.error(429, "slow down"), wire.answer("ok now"))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error is None and finished.answer == "ok now"
    assert sleeps.delays == [0.5] and len(server.requests) == 2
    assert_nothing_lost(workspace, session, finished)


@pytest.mark.parametrize(("status", "retry_after", "wait"), [
    (429, "300", r"300s \(5 min\)"),
    (503, "an HTTP date an hour ahead", r"(35\d\d|3600)s \(60 min\)"),
], ids=["429-seconds", "503-date"])
async def test_a_retry_after_over_a_minute_is_reported_at_once(
        wire: Wire, open_session: Opener, workspace: Path, server: LoopbackServer,
        sleeps: RecordedSleeps, status: int, retry_after: str, wait: str) -> None:
    if retry_after.startswith("an HTTP date"):
        retry_after = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    server.script(wire.error(status, "come back later", {"retry-after": retry_after}))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error is not None
    assert re.fullmatch(f"{wire}: {status} [A-Za-z ]+: come back later; the server asks to "
                        f"wait {wait} before another request: try again later", finished.error)
    assert sleeps.delays == []  # never waited out in silence
    assert len(server.requests) == 1
    assert_nothing_lost(workspace, session, finished)


async def test_500_is_retried_once_and_recovers(wire: Wire, open_session: Opener,
                                                workspace: Path, server: LoopbackServer,
                                                sleeps: RecordedSleeps) -> None:
    server.script(wire.error(500, "internal"), wire.answer("recovered"))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error is None and finished.answer == "recovered"
    assert sleeps.delays == [0.5] and len(server.requests) == 2
    assert_nothing_lost(workspace, session, finished)


async def test_503_storm_gives_up_then_fails_fast_then_recovers(
        wire: Wire, open_session: Opener, workspace: Path, server: LoopbackServer,
        sleeps: RecordedSleeps, clock: FakeClock) -> None:
    server.script(*[wire.error(503, "overloaded")] * 3, wire.answer("back"))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error == (f"{wire}: 503 Service Unavailable: overloaded "
                              "(gave up after 3 attempts)")
    assert sleeps.delays == [0.5, 1.0] and len(server.requests) == 3
    again = await session.send("try again")
    assert again.error == (f"{wire}: circuit open after 3 consecutive failures, "
                           "retrying in 60s")
    assert len(server.requests) == 3  # the storm is not fed
    clock.advance(60)
    last = await session.send("and now")
    assert last.error is None and last.answer == "back"
    assert_nothing_lost(workspace, session, last, (PROMPT, "try again", "and now"))


# -- the stream --------------------------------------------------------------------------------


async def test_a_malformed_event_is_skipped(wire: Wire, open_session: Opener, workspace: Path,
                                            server: LoopbackServer) -> None:
    server.script(wire.stream(*wire.opening(), wire.text("Good "), wire.garbage(),
                              wire.text("answer"), *wire.closing()))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error is None and finished.answer == "Good answer"
    assert len(server.requests) == 1
    assert_nothing_lost(workspace, session, finished)


async def test_only_malformed_events_are_reported_not_retried(
        wire: Wire, open_session: Opener, workspace: Path, server: LoopbackServer) -> None:
    server.script(wire.stream(*wire.opening(), wire.garbage()))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error is not None
    assert finished.error.startswith(f"{wire}: the answer was interrupted: the stream ended "
                                     "before the model finished (1 malformed event(s) skipped")
    assert len(server.requests) == 1  # garbage would come back the same
    assert_nothing_lost(workspace, session, finished)


async def test_cut_stream_keeps_the_partial_answer(wire: Wire, open_session: Opener,
                                                   workspace: Path,
                                                   server: LoopbackServer) -> None:
    opening = wire.opening()
    server.script(wire.stream(*opening, wire.text("The answer "), wire.text("is"),
                              wire.text(" 42"), *wire.closing(), drop_after=len(opening) + 2))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.interrupted and finished.answer == "The answer is"
    assert finished.error is not None
    assert finished.error.startswith(f"{wire}: the answer was interrupted: ")
    assert server.host in finished.error
    assert len(server.requests) == 1  # never retried once part of the answer was shown
    assert_nothing_lost(workspace, session, finished)


async def test_no_finish_event(wire: Wire, open_session: Opener, workspace: Path,
                               server: LoopbackServer) -> None:
    server.script(wire.stream(*wire.opening(), wire.text("Almost"), wire.text(" done")))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.interrupted and finished.answer == "Almost done"
    assert finished.error == (f"{wire}: the answer was interrupted: the stream ended before "
                              "the model finished")
    assert len(server.requests) == 1
    assert_nothing_lost(workspace, session, finished)


async def test_bad_tool_json_goes_back_to_the_model(wire: Wire, open_session: Opener,
                                                    workspace: Path,
                                                    server: LoopbackServer) -> None:
    server.script(wire.tool_call("call_1", "read_file", '{"path": "README.md'),
                  wire.answer("Sorry, let me fix that."))
    session, finished = await sent(open_session, wire, server.url)
    assert finished.error is None and finished.answer == "Sorry, let me fix that."
    assert len(server.requests) == 2
    assert "not valid JSON" in server.requests[1].body.decode()
    results = [e for e in log_events(workspace, session) if e["type"] == "tool_result"]
    assert [(r["call_id"], r["is_error"]) for r in results] == [("call_1", True)]
    assert "not valid JSON" in results[0]["content"]
    assert_nothing_lost(workspace, session, finished)

