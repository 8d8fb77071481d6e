"""The HTTP exchanges of a streamable-HTTP MCP server, watched for their end.

The SDK reads each answer from the response to the POST that carried the request (or from
the long-lived GET stream for what the server sends on its own). When such a response breaks
off (the server died) or ends without an answer the SDK could read, the SDK only logs it, and
the call would wait out its timeout. An httpx response hook wraps each response's body so
the connection hears, at once, which request's exchange ended and whether it broke.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class ExchangeEnded:
    """A response body was closed: the GET stream (request_id None) or a POST's answer."""

    method: str
    request_id: int | str | None
    status: int
    broken: str | None
    """Why reading it failed (None: it ended normally)."""


def request_id_of(request: httpx.Request) -> int | str | None:
    """The JSON-RPC id of the request a POST carried (None: a notification or a GET)."""
    if request.method != "POST":
        return None
    try:
        body = json.loads(request.content)
    except (ValueError, httpx.RequestNotRead):
        return None
    found = body.get("id") if isinstance(body, dict) else None
    return found if isinstance(found, int | str) and not isinstance(found, bool) else None


class _WatchedBody(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, ended: Callable[[str | None], None]):
        self._inner = inner
        self._ended = ended
        self._broken: str | None = None
        self._reported = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        except httpx.TransportError as exc:
            self._broken = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            if not self._reported:
                self._reported = True
                self._ended(self._broken)


def watching_hook(report: Callable[[ExchangeEnded], None]
                  ) -> Callable[[httpx.Response], object]:
    """An httpx `response` event hook that calls `report` when each response body closes."""

    async def hook(response: httpx.Response) -> None:
        stream = response.stream
        if not isinstance(stream, httpx.AsyncByteStream):
            return
        request = response.request
        method, request_id = request.method, request_id_of(request)
        status = response.status_code

        def ended(broken: str | None) -> None:
            report(ExchangeEnded(method, request_id, status, broken))

        response.stream = _WatchedBody(stream, ended)

    return hook
