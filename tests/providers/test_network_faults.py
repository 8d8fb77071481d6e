"""Retries, timeouts, the circuit breaker and HTTP errors, over real loopback sockets."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from swetui.providers.events import Done, StreamError, TextDelta
from swetui.providers.resilience import RetryPolicy
from tests.providers.helpers import API_KEY, ask, collect, text_of
from tests.providers.loopback import json_reply, sse
from tests.providers.test_openai import chunk


def answer(text: str = "fine") -> object:
    return sse(chunk({"content": text}), chunk(finish="stop"), "data: [DONE]\n\n")


def server_error(message: str = "the server had an error") -> object:
    return json_reply(500, {"error": {"message": message, "type": "server_error"}})


async def test_429_honours_retry_after_then_succeeds(server, openai, sleeps):
    server.script(json_reply(429, {"error": {"message": "Rate limit reached"}},
                             headers={"retry-after": "7"}), answer("after the wait"))
    events = await collect(openai())
    assert text_of(events) == "after the wait"
    assert sleeps.delays == [7.0]
    assert len(server.requests) == 2


async def test_retry_after_as_http_date_is_waited_out_when_short(server, openai, sleeps):
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=40), usegmt=True)
    server.script(json_reply(429, {"error": {"message": "slow down"}},
                             headers={"retry-after": later}), answer())
    events = await collect(openai())
    assert isinstance(events[-1], Done)
    [waited] = sleeps.delays
    assert 30 < waited <= 40


async def test_retry_after_beyond_the_policy_limit_is_reported_not_waited(server, openai,
                                                                          sleeps):
    server.script(json_reply(429, {"error": {"message": "slow down"}},
                             headers={"retry-after": "13"}), answer())
    events = await collect(openai(retry=RetryPolicy(max_retry_after=12.0)))
    assert events[-1].message == ("openai: 429 Too Many Requests: slow down; the server asks "
                                  "to wait 13s before another request: try again later")
    assert sleeps.delays == [] and len(server.requests) == 1


async def test_500_then_success_backs_off(server, openai, sleeps):
    server.script(server_error(), answer("recovered"))
    events = await collect(openai())
    assert text_of(events) == "recovered"
    assert sleeps.delays == [0.5]


async def test_three_500s_open_the_circuit_until_the_cooldown(server, openai, sleeps, clock):
    provider = openai()
    server.script(server_error("boom"), server_error("boom"), server_error("boom"), answer("back"))

    events = await collect(provider)
    error = events[-1]
    assert isinstance(error, StreamError)
    assert error.message.startswith("openai: 500 Internal Server Error: boom")
    assert "gave up after 3 attempts" in error.message
    assert error.status == 500 and error.retryable
    assert sleeps.delays == [0.5, 1.0]  # exponential backoff between the three attempts
    assert len(server.requests) == 3

    clock.advance(15)
    events = await collect(provider)
    assert events == [events[-1]]
    assert "circuit open" in events[-1].message and "retrying in 45s" in events[-1].message
    assert len(server.requests) == 3  # failed fast: nothing was sent

    clock.advance(45)
    events = await collect(provider)
    assert text_of(events) == "back"
    assert len(server.requests) == 4
    assert provider.breaker.remaining() is None


async def test_failed_trial_after_cooldown_reopens_at_once(server, openai, clock):
    provider = openai(retry=RetryPolicy(max_attempts=1))
    server.script(server_error())
    for _ in range(3):
        await collect(provider)
    assert provider.breaker.is_open
    clock.advance(60)
    events = await collect(provider)  # the one trial request
    assert "500" in events[-1].message
    assert len(server.requests) == 4
    events = await collect(provider)
    assert "circuit open" in events[-1].message
    assert len(server.requests) == 4


async def test_connection_dropped_mid_stream_keeps_the_partial_answer(server, openai):
    server.script(sse(chunk({"content": "The answer "}), chunk({"content": "is"}),
                      chunk({"content": " 42"}), chunk(finish="stop"), "data: [DONE]\n\n",
                      drop_after=2))
    events = await collect(openai())
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["The answer ", "is"]
    error = events[-1]
    assert isinstance(error, StreamError)
    assert "interrupted" in error.message and server.host in error.message
    assert len(server.requests) == 1  # never retried once part of the answer was shown


async def test_stream_cut_before_any_event_is_retried(server, openai, sleeps):
    server.script(sse(": keep-alive\n\n"), answer("second try"))
    events = await collect(openai())
    assert text_of(events) == "second try"
    assert len(server.requests) == 2


async def test_slow_first_byte_times_out_with_a_clear_message(server, openai):
    server.script(sse(chunk({"content": "too late"}), stall=30))
    events = await collect(openai(timeout=0.3))
    error = events[-1]
    assert isinstance(error, StreamError)
    # A connect slower than 0.3 s (a loaded machine) is retried, and the message counts it.
    assert error.message.startswith(f"openai: no response from {server.host} within 0.3s")
    assert len(server.requests) == 1  # a slow model is not hammered with retries


async def test_401_gives_one_line_without_the_key(server, openai, anthropic):
    # OpenAI echoes (part of) the key it refused; the message must not repeat it.
    server.script(json_reply(401, {"error": {
        "message": f"Incorrect API key provided: {API_KEY}. Find your key at the dashboard.",
        "type": "invalid_request_error", "code": "invalid_api_key"}}))
    provider = openai()
    events = await collect(provider)
    error = events[-1]
    assert error.message.startswith("openai: 401 Unauthorized: Incorrect API key provided")
    assert API_KEY not in error.message and "\n" not in error.message
    assert len(server.requests) == 1  # a wrong key is not retried
    assert provider.breaker.consecutive_failures == 0
    assert API_KEY not in repr(provider)


async def test_connection_refused_is_retried_then_reported(openai, sleeps, refused_port):
    port = refused_port
    provider = openai(retry=RetryPolicy(max_attempts=2))
    provider.base_url = f"http://127.0.0.1:{port}/v1"
    events = await collect(provider)
    error = events[-1]
    assert isinstance(error, StreamError)
    assert error.message.startswith(f"openai: cannot connect to 127.0.0.1:{port}")
    assert "gave up after 2 attempts" in error.message
    assert sleeps.delays == [0.5]


async def test_html_instead_of_a_stream_is_reported(server, openai):
    from tests.providers.loopback import Reply
    server.script(Reply(headers={"content-type": "text/html"},
                        parts=[b"<html><body>Login to the proxy</body></html>"]))
    events = await collect(openai())
    assert events[-1].message == (f"openai: expected an event stream from {server.host}, "
                                  "got text/html")


async def test_stall_mid_answer_is_an_interruption(server, openai):
    server.script(sse(chunk({"content": "So far"}), 30.0, chunk({"content": " so good"}),
                      chunk(finish="stop"), "data: [DONE]\n\n"))
    # The first part must arrive within the timeout: not too short for a loaded machine
    # (a connect slower than that is retried, and the message counts the attempts).
    events = await collect(openai(timeout=1.5))
    assert text_of(events) == "So far"
    assert events[-1].message.startswith(f"openai: the answer was interrupted: no data from "
                                         f"{server.host} for 1.5s")
    assert len(server.requests) == 1


async def test_cancelling_the_consumer_propagates_and_is_not_an_error(server, openai):
    server.script(sse(chunk({"content": "waiting"}), 30.0, chunk(finish="stop")),
                  answer("next one"))
    provider = openai()
    seen: list = []
    started = asyncio.Event()

    async def consume() -> None:
        async for event in provider.stream(ask()):
            seen.append(event)
            started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    assert [e.kind for e in seen] == ["text"]
    assert provider.breaker.consecutive_failures == 0  # the user's esc is not a fault
    assert text_of(await collect(provider)) == "next one"
