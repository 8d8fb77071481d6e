"""The retry policy, Retry-After parsing and the circuit breaker on their own."""

from __future__ import annotations

from datetime import UTC, datetime

from swetui.providers.resilience import (
    CircuitBreaker,
    RetryPolicy,
    format_wait,
    parse_retry_after,
)
from tests.providers.loopback import FakeClock


def test_retry_after_seconds_dates_and_garbage():
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:20 GMT", now=now) == 20.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None
    assert parse_retry_after("-4") == 0.0


def test_backoff_doubles_and_is_capped_and_retry_after_wins():
    policy = RetryPolicy(base_delay=0.5, max_delay=3.0, max_retry_after=10.0)
    assert [policy.delay(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0]
    assert policy.delay(1, retry_after=4.0) == 4.0
    assert policy.delay(1, retry_after=3600.0) == 10.0


def test_breaker_opens_after_three_failures_and_half_opens_after_cooldown():
    clock = FakeClock()
    breaker = CircuitBreaker(threshold=3, cooldown=60, clock=clock)
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.remaining() is None
    breaker.record_success()  # a success in between resets the count
    for _ in range(3):
        breaker.record_failure()
    assert breaker.remaining() == 60
    clock.advance(59)
    assert breaker.remaining() == 1
    clock.advance(1)
    assert breaker.remaining() is None  # one trial may go
    breaker.record_failure()
    assert breaker.remaining() == 60  # and one failure re-opens it
    clock.advance(60)
    assert not breaker.is_open
    breaker.record_success()
    breaker.record_failure()
    assert not breaker.is_open


def test_a_wait_over_a_minute_is_too_long_to_sit_through():
    policy = RetryPolicy()
    assert not policy.too_long(None) and not policy.too_long(60.0)
    assert policy.too_long(61.0)
    assert [format_wait(s) for s in (7, 61, 300, 3600, 5 * 3600, 1e308)] == [
        "7s", "61s", "300s (5 min)", "3600s (60 min)", "5 h", "more than 2 days"]
