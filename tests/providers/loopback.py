"""A scripted HTTP/1.1 server on 127.0.0.1 for provider tests: real sockets, real chunked SSE.

Each test scripts the replies in order (the last one repeats) and inspects what the server
received. Replies can stall before the status line, pause between chunks, or drop the
connection mid-body, the way real back ends and proxies misbehave.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP answer."""

    status: int = 200
    reason: str = "OK"
    headers: dict[str, str] = field(default_factory=dict)
    parts: list[bytes] = field(default_factory=list)
    """Body pieces, each sent as one HTTP chunk (or concatenated when not chunked)."""
    chunked: bool = True
    stall: float = 0.0
    """Seconds to wait before sending anything (a slow first byte)."""
    pauses: dict[int, float] = field(default_factory=dict)
    """Seconds to wait before sending the part at this index (a stall mid-answer)."""
    gates: dict[int, asyncio.Event] = field(default_factory=dict)
    """Events to wait for before sending the part at this index: a test steps the stream
    (kill the client mid-answer, then let the server go on)."""
    drop_after: int | None = None
    """Abort the socket after this many parts, without the terminating chunk."""
    gate: asyncio.Event | None = None
    """Held until the test sets it: a slow answer that ends when the test says, not a timer."""


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
            429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable", 529: "Overloaded"}


def sse(*events: str | float | dict[str, Any] | tuple[str, dict[str, Any]] | asyncio.Event,
        split: bool = True, drop_after: int | None = None, stall: float = 0.0) -> Reply:
    """An event-stream reply. A dict is sent as `data: <json>`, a `(name, dict)` pair as a
    named event, a string verbatim (for comments, `[DONE]` and garbage), a number as a
    pause of that many seconds before the next event, an `asyncio.Event` as a gate the
    next event waits behind until the test sets it. With `split`,
    every event is cut in two chunks mid-JSON, as TCP is free to do. `drop_after=N` aborts
    the connection after the first N events."""
    parts: list[bytes] = []
    ends: list[int] = []  # parts index after each event, to drop between events
    pauses: dict[int, float] = {}
    gates: dict[int, asyncio.Event] = {}
    for event in events:
        if isinstance(event, asyncio.Event):
            gates[len(parts)] = event
            continue
        if isinstance(event, float | int):
            pauses[len(parts)] = float(event)
            continue
        if isinstance(event, tuple):
            name, data = event
            text = f"event: {name}\ndata: {json.dumps(data)}\n\n"
        elif isinstance(event, dict):
            text = f"data: {json.dumps(event)}\n\n"
        else:
            text = event
        raw = text.encode()
        if split and len(raw) > 8:
            middle = len(raw) // 2
            parts.extend([raw[:middle], raw[middle:]])
        else:
            parts.append(raw)
        ends.append(len(parts))
    drop_part = ends[drop_after - 1] if drop_after else (0 if drop_after == 0 else None)
    return Reply(headers={"content-type": "text/event-stream", "cache-control": "no-cache"},
                 parts=parts, drop_after=drop_part, stall=stall, pauses=pauses, gates=gates)


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    """A plain JSON answer with a Content-Length (error responses look like this)."""
    return Reply(status=status, reason=_REASONS.get(status, "Error"),
                 headers={"content-type": "application/json", **(headers or {})},
                 parts=[json.dumps(body).encode()], chunked=False)


@dataclass
class Received:
    """A request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The decoded JSON body."""
        return json.loads(self.body)


SIDE_DOORS = frozenset({("GET", "/props"), ("POST", "/tokenize"), ("POST", "/extras/tokenize"),
                        ("POST", "/api/show"), ("GET", "/api/tags"), ("GET", "/v1/models")})
"""What swetui asks a local server besides chat (its window, token counts, models): a 404
unless a test routes it, and never an answer from the script."""


class LoopbackServer:
    """An asyncio HTTP server answering with scripted replies."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[Received] = []
        self.routes: dict[tuple[str, str], Reply | Callable[[Received], Reply]] = {}
        """Fixed answers by (method, path), for a server's side doors (`/props`,
        `/tokenize`, `/v1/models`): they neither use nor count towards the script."""
        self.side_requests: list[Received] = []
        self.script_path: str | None = None
        """When set, only this path plays the script; other paths not routed get a 404."""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT`."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def host(self) -> str:
        """`127.0.0.1:PORT`, as providers name it in messages."""
        return f"127.0.0.1:{self.port}"

    def script(self, *replies: Reply) -> None:
        """Queue replies; once they run out, the last one is repeated."""
        self.replies.extend(replies)

    async def start(self) -> None:
        """Listen on an ephemeral loopback port."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and abandon stalled handlers."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._server is not None:
            await self._server.wait_closed()

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.create_task(self._handle(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await self._read_request(reader)
            if request is None:
                return
            route = self.routes.get((request.method, request.path))
            if route is not None or (request.method, request.path) in SIDE_DOORS or (
                    self.script_path is not None and request.path != self.script_path):
                self.side_requests.append(request)
                if callable(route):
                    route = route(request)
                await self._send(route or json_reply(404, {"error": "not found"}), writer)
                return
            self.requests.append(request)
            reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
            await self._send(reply, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away (a timeout test); nothing to answer
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    @staticmethod
    async def _read_request(reader: asyncio.StreamReader) -> Received | None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        if not lines or not lines[0]:
            return None
        method, path, _ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        body = await reader.readexactly(length) if length else b""
        return Received(method, path, headers, body)

    @staticmethod
    async def _send(reply: Reply, writer: asyncio.StreamWriter) -> None:
        if reply.gate is not None:
            await reply.gate.wait()
        if reply.stall:
            await asyncio.sleep(reply.stall)
        reason = reply.reason
        if reply.status != 200 and reason == "OK":
            reason = _REASONS.get(reply.status, "Error")
        head = [f"HTTP/1.1 {reply.status} {reason}", "connection: close"]
        head += [f"{name}: {value}" for name, value in reply.headers.items()]
        if reply.chunked:
            head.append("transfer-encoding: chunked")
        else:
            head.append(f"content-length: {sum(len(part) for part in reply.parts)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        for count, part in enumerate(reply.parts):
            if count in reply.pauses:
                await asyncio.sleep(reply.pauses[count])
            if count in reply.gates:
                await reply.gates[count].wait()
            if reply.drop_after is not None and count >= reply.drop_after:
                # Abort: no terminating chunk, the way a dropped connection looks.
                writer.transport.abort()
                return
            writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n" if reply.chunked
                         else part)
            await writer.drain()
            await asyncio.sleep(0)  # let the client see the chunks one by one
        if reply.chunked:
            writer.write(b"0\r\n\r\n")
            await writer.drain()


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.now += seconds


class RecordedSleeps:
    """Stands in for `asyncio.sleep` in the retry loop: records each backoff, waits none."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)
