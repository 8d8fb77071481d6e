"""The transport every network provider shares: one POST answered with server-sent events.

`SseProvider` owns the httpx client, the timeouts, the retry loop and the circuit breaker;
a subclass says where to send the request, with which headers and body, and supplies a
`StreamParser` that turns the protocol's events into normalised `ProviderEvent`s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import httpx
from httpx_sse import ServerSentEvent, aconnect_sse

from swetui.messages import ChatRequest
from swetui.providers.errors import error_detail, one_line, redact
from swetui.providers.events import Done, ProviderEvent, StreamError
from swetui.providers.resilience import (
    RETRYABLE_STATUSES,
    CircuitBreaker,
    Clock,
    RetryPolicy,
    Sleep,
    format_seconds,
    format_wait,
    parse_retry_after,
)

log = logging.getLogger(__name__)

_MAX_ERROR_BODY = 64 * 1024


class StreamParser(Protocol):
    """Turns one response's server-sent events into normalised events (fresh per attempt)."""

    def feed(self, event: ServerSentEvent) -> list[ProviderEvent]:
        """Events for one SSE message; a final `Done` or `StreamError` ends the stream."""
        ...

    def finish(self) -> list[ProviderEvent]:
        """The body ended: flush what is pending and end with `Done` or `StreamError`."""
        ...


@dataclass
class _Failure:
    """Why an attempt failed before the consumer saw anything."""

    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    counts_for_breaker: bool = True


class SseProvider:
    """Base of the HTTP streaming providers: retries, timeouts, breaker, error messages.

    Subclasses set `provider_id` and implement `_url`, `_headers`, `_body` and `_parser`.
    """

    provider_id: ClassVar[str] = "http"

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        clock: Clock | None = None,
        sleep: Sleep = asyncio.sleep,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.model = model
        self.name = f"{self.provider_id}:{model}"
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._api_key = api_key or None
        self._retry = retry or RetryPolicy()
        if breaker is None:
            breaker = CircuitBreaker(clock=clock) if clock else CircuitBreaker()
        self.breaker = breaker
        self._sleep = sleep
        # The read timeout bounds the wait for the first byte and for each later chunk.
        self._timeouts = httpx.Timeout(timeout, connect=min(connect_timeout, timeout))
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(timeout=self._timeouts)

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}({self.name!r}, base_url={self.base_url!r})"

    # -- what a subclass provides --------------------------------------------------------

    def _url(self) -> str:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _parser(self) -> StreamParser:
        raise NotImplementedError

    # -- the stream ----------------------------------------------------------------------

    @property
    def host(self) -> str:
        """`host:port` of the back end, for messages."""
        url = httpx.URL(self._url())
        return f"{url.host}:{url.port}" if url.port else url.host

    async def aclose(self) -> None:
        """Close the HTTP client (when this provider created it)."""
        if self._owns_client:
            await self._client.aclose()

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Send `request` and yield normalised events; always ends with Done or StreamError."""
        # aclosing: when the consumer stops early the HTTP response is closed at once, not
        # whenever the garbage collector finalises the inner generator.
        async with aclosing(self._stream(request)) as events:
            async for event in events:
                if isinstance(event, StreamError):
                    event = event.model_copy(update={"message": self._redact(event.message)})
                yield event

    async def _stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        left = self.breaker.remaining()
        if left is not None:
            yield StreamError(
                message=f"{self.provider_id}: circuit open after "
                        f"{self.breaker.consecutive_failures} consecutive failures, "
                        f"retrying in {format_seconds(left)}",
                retryable=True)
            return
        body = self._body(request)
        attempt = 0
        while True:
            attempt += 1
            yielded = False
            failure: _Failure | None = None
            try:
                async with aconnect_sse(self._client, "POST", self._url(), json=body,
                                        headers=self._headers(),
                                        timeout=self._timeouts) as source:
                    response = source.response
                    failure = await self._check_response(response)
                    if failure is None:
                        async with aclosing(self._events(source.aiter_sse())) as events:
                            async for event in events:
                                if isinstance(event, StreamError):
                                    if not yielded and event.retryable:
                                        failure = _Failure(event.message, True, event.status)
                                        break
                                    if event.retryable:
                                        self.breaker.record_failure()
                                    yield event
                                    return
                                if isinstance(event, Done):
                                    self.breaker.record_success()
                                    yield event
                                    return
                                yielded = True
                                yield event
            except httpx.TimeoutException as exc:
                failure = self._timeout_failure(exc, yielded)
            except httpx.TransportError as exc:
                failure = self._transport_failure(exc, yielded)
            if failure is None:  # a parser that ended without a terminal event
                failure = _Failure(f"{self.provider_id}: the stream ended unexpectedly", True)
            if yielded:
                # Never retry once the consumer has part of the answer: it keeps it.
                self.breaker.record_failure()
                yield StreamError(message=failure.message, retryable=True, status=failure.status)
                return
            if failure.counts_for_breaker:
                self.breaker.record_failure()
            else:
                self.breaker.record_success()
            too_long = self._retry.too_long(failure.retry_after)
            if (failure.retryable and attempt < self._retry.max_attempts
                    and not self.breaker.is_open and not too_long):
                delay = self._retry.delay(attempt, failure.retry_after)
                log.info("%s: attempt %d failed (%s); retrying in %.2fs", self.name, attempt,
                         self._redact(failure.message), delay)
                await self._sleep(delay)
                continue
            message = failure.message
            if too_long and failure.retry_after is not None:
                message += (f"; the server asks to wait {format_wait(failure.retry_after)} "
                            "before another request: try again later")
            if attempt > 1:
                message += f" (gave up after {attempt} attempts)"
            yield StreamError(message=message, retryable=failure.retryable, status=failure.status)
            return

    async def _events(
        self, sse: AsyncIterator[ServerSentEvent]
    ) -> AsyncGenerator[ProviderEvent, None]:
        """Parsed events up to and including the terminal one."""
        parser = self._parser()
        async for message in sse:
            for event in parser.feed(message):
                yield event
                if isinstance(event, Done | StreamError):
                    return
        for event in parser.finish():
            yield event
            if isinstance(event, Done | StreamError):
                return

    async def _check_response(self, response: httpx.Response) -> _Failure | None:
        """None when the response is a 2xx event stream; else why it is not."""
        status = response.status_code
        if 200 <= status < 300:
            content_type = response.headers.get("content-type", "")
            if "text/event-stream" in content_type:
                return None
            detail = error_detail(await _read_capped(response))
            kind = content_type.partition(";")[0] or "no content type"
            return _Failure(
                f"{self.provider_id}: expected an event stream from {self.host}, got {kind}"
                + (f": {detail}" if detail else ""),
                retryable=False, status=status, counts_for_breaker=False)
        detail = error_detail(await _read_capped(response))
        message = f"{self.provider_id}: {status} {response.reason_phrase or 'error'}".rstrip()
        if detail:
            message += f": {detail}"
        retryable = status in RETRYABLE_STATUSES or status >= 500
        retry_after = None
        if retryable:
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            if retry_after is None and (ms := response.headers.get("retry-after-ms")):
                retry_ms = parse_retry_after(ms)
                retry_after = retry_ms / 1000 if retry_ms is not None else None
        return _Failure(message, retryable, status, retry_after, counts_for_breaker=retryable)

    def _timeout_failure(self, exc: httpx.TimeoutException, yielded: bool) -> _Failure:
        if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
            limit = self._timeouts.connect or self.timeout
            return _Failure(f"{self.provider_id}: could not connect to {self.host} within "
                            f"{format_seconds(limit)}", retryable=True)
        if yielded:
            return _Failure(f"{self.provider_id}: the answer was interrupted: no data from "
                            f"{self.host} for {format_seconds(self.timeout)}", retryable=True)
        # A slow first byte is not retried: the model may just be slow, and retrying would
        # multiply the wait.
        return _Failure(f"{self.provider_id}: no response from {self.host} within "
                        f"{format_seconds(self.timeout)}", retryable=False)

    def _transport_failure(self, exc: httpx.TransportError, yielded: bool) -> _Failure:
        reason = one_line(str(exc), 120) or type(exc).__name__
        if isinstance(exc, httpx.ConnectError):
            return _Failure(f"{self.provider_id}: cannot connect to {self.host}: {reason}",
                            retryable=True)
        if yielded:
            return _Failure(f"{self.provider_id}: the answer was interrupted: connection to "
                            f"{self.host} lost ({reason})", retryable=True)
        return _Failure(f"{self.provider_id}: connection to {self.host} failed: {reason}",
                        retryable=True)

    def _redact(self, text: str) -> str:
        return redact(text, (self._api_key,) if self._api_key else ())


async def _read_capped(response: httpx.Response) -> bytes:
    """The start of an error body; enough for a message, bounded against huge pages."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _MAX_ERROR_BODY:
            break
    return b"".join(chunks)[:_MAX_ERROR_BODY]
