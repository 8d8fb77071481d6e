"""Retries, backoff and the circuit breaker shared by the network providers.

Kept free of httpx so the policy can be reasoned about (and tested) on its own; the transport
loop in `sse.py` applies it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

Clock = Callable[[], float]
"""A monotonic clock in seconds (injectable so tests can move time)."""

Sleep = Callable[[float], Awaitable[None]]
"""An async sleep (injectable so tests need not wait for backoff)."""

RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
"""Statuses worth another attempt: timeouts, rate limits, server errors, Anthropic overload."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before trying a request again.

    Retries happen only before the consumer saw any event, so an answer is never duplicated.
    """

    max_attempts: int = 3
    """Attempts in total, the first one included."""
    base_delay: float = 0.5
    """Delay before the second attempt; it doubles for each further attempt."""
    max_delay: float = 8.0
    """Upper bound of the exponential backoff."""
    max_retry_after: float = 60.0
    """A server's `Retry-After` is waited out up to this many seconds; a longer one is
    reported at once (`too_long`) instead of keeping the user waiting in silence."""

    def too_long(self, retry_after: float | None) -> bool:
        """True when the server asks for a longer wait than a retry should sit through."""
        return retry_after is not None and retry_after > self.max_retry_after

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_retry_after))
        return min(self.base_delay * 2.0 ** max(0, attempt - 1), self.max_delay)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait according to a `Retry-After` header (delta-seconds or an HTTP date).

    Returns None when the header is absent or unreadable, so the caller falls back to backoff.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


class CircuitBreaker:
    """Stops calling a back end that keeps failing.

    After `threshold` consecutive failed requests the circuit opens for `cooldown` seconds;
    requests made meanwhile fail at once. After the cooldown one trial request goes through:
    success closes the circuit, failure opens it again for another cooldown.
    """

    def __init__(self, threshold: int = 3, cooldown: float = 60.0,
                 clock: Clock = time.monotonic) -> None:
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None

    @property
    def consecutive_failures(self) -> int:
        """Failed requests since the last success."""
        return self._failures

    def remaining(self) -> float | None:
        """Seconds until the circuit lets a request through, or None when it is closed."""
        if self._opened_at is None:
            return None
        left = self._opened_at + self.cooldown - self._clock()
        if left > 0:
            return left
        # Half-open: let one trial through; a single further failure re-opens the circuit.
        self._opened_at = None
        self._failures = self.threshold - 1
        return None

    def record_success(self) -> None:
        """The back end answered: forget earlier failures."""
        self._failures = 0
        self._opened_at = None

    def record_failure(self) -> None:
        """A request failed (network error, timeout, 429 or 5xx)."""
        self._failures += 1
        if self._failures >= self.threshold:
            self._opened_at = self._clock()

    @property
    def is_open(self) -> bool:
        """True while requests are refused without being sent."""
        return self.remaining() is not None


def format_seconds(seconds: float) -> str:
    """`0.3s`, `12s`: short and without float noise, for user-facing messages."""
    return f"{seconds:g}s" if seconds < 10 else f"{math.ceil(seconds)}s"


def format_wait(seconds: float) -> str:
    """A server's requested wait for a person: `45s`, `300s (5 min)`, `5 h`, and no
    309-digit number for a `Retry-After: 1e308`."""
    if seconds < 120:
        return format_seconds(seconds)
    if seconds < 2 * 3600:
        return f"{format_seconds(seconds)} ({math.ceil(seconds / 60)} min)"
    if seconds < 2 * 86400:
        return f"{math.ceil(seconds / 3600)} h"
    return "more than 2 days"
