"""What passes between an MCP server's transport and the SDK's client session, watched.

The SDK waits for an answer until the call's timeout when the server's process exits while
idle, when a frame is malformed, or when an HTTP answer breaks off. `MessageTap` sits between
the transport's streams and the `ClientSession`: it forwards every message unchanged, keeps
the requests still waiting for an answer, says at once when the transport's stream ends, and
can answer a waiting request with an error of its own (`fail`), so the call returns with a
clear message instead of waiting out its timeout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import (
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError

TAP_ERROR = -32099
"""The JSON-RPC error code of the answers the tap gives itself (with `data` = TAP_MARK)."""
TAP_MARK = "swetui"
RAW_ID = re.compile(r'"id"\s*:\s*("?)(-?\d+|[A-Za-z0-9_-]{1,64})\1')
SHOWN = 160
"""Characters of a malformed frame quoted in the log."""


@dataclass(frozen=True)
class Waiting:
    """A request sent and not answered yet."""

    method: str
    tool: str | None = None

    @property
    def what(self) -> str:
        return f"the call to {self.tool}" if self.tool else f"the {self.method} request"


def raw_text(problem: Exception) -> str:
    """The text of the frame a transport could not read, as far as the error says."""
    if isinstance(problem, ValidationError):
        for error in problem.errors():
            value = error.get("input")
            if isinstance(value, str):
                return value
            if isinstance(value, dict):
                return json.dumps(value, default=str)
    return str(problem)


def request_id_in(text: str) -> RequestId | None:
    """The request id a malformed frame names, if it names one readably."""
    match = RAW_ID.search(text)
    if match is None:
        return None
    value = match.group(2)
    return int(value) if not match.group(1) and value.lstrip("-").isdigit() else value


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


class MessageTap:
    """Forwards messages between a transport and a session; see the module's docstring."""

    def __init__(self, *, on_closed: Callable[[], None],
                 on_malformed: Callable[[str, Waiting | None], None]) -> None:
        self.waiting: dict[RequestId, Waiting] = {}
        self.stopping = False
        self._on_closed = on_closed
        self._on_malformed = on_malformed
        self._to_session: MemoryObjectSendStream[SessionMessage | Exception] | None = None

    def attach(self, group: TaskGroup,
               read: MemoryObjectReceiveStream[SessionMessage | Exception],
               write: MemoryObjectSendStream[SessionMessage],
               ) -> tuple[MemoryObjectReceiveStream[SessionMessage | Exception],
                          MemoryObjectSendStream[SessionMessage]]:
        """The streams the session uses in place of the transport's `read` and `write`."""
        to_session, session_read = anyio.create_memory_object_stream[
            SessionMessage | Exception](0)
        session_write, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        self._to_session = to_session
        group.start_soon(self._inbound, read, to_session)
        group.start_soon(self._outbound, from_session, write)
        return session_read, session_write

    async def fail(self, request_id: RequestId, message: str) -> bool:
        """Answer the waiting request `request_id` with an error saying `message`; False
        when it is not waiting any more (its real answer came first)."""
        if self.waiting.pop(request_id, None) is None or self._to_session is None:
            return False
        error = JSONRPCError(jsonrpc="2.0", id=request_id,
                             error=ErrorData(code=TAP_ERROR, message=message, data=TAP_MARK))
        try:
            await self._to_session.send(SessionMessage(JSONRPCMessage(error)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        return True

    async def _inbound(self, read: MemoryObjectReceiveStream[SessionMessage | Exception],
                       to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        try:
            async with to_session:
                async for message in read:
                    if isinstance(message, Exception):
                        await self._malformed(message)
                        continue
                    root = message.message.root
                    if isinstance(root, JSONRPCResponse | JSONRPCError):
                        if self.waiting.pop(root.id, None) is None and \
                                isinstance(root.id, str) and root.id.isdigit():
                            self.waiting.pop(int(root.id), None)
                    await to_session.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return  # the session closed first: it is stopping
        if not self.stopping:
            self._on_closed()

    async def _malformed(self, problem: Exception) -> None:
        text = raw_text(problem)
        request_id = request_id_in(text)
        waiting = self.waiting.get(request_id) if request_id is not None else None
        self._on_malformed(short(text), waiting)
        if request_id is not None and waiting is not None:
            await self.fail(request_id, f"the server answered {waiting.what} with a malformed "
                                        f"message: {short(text)}")

    async def _outbound(self, from_session: MemoryObjectReceiveStream[SessionMessage],
                        write: MemoryObjectSendStream[SessionMessage]) -> None:
        try:
            async with write, from_session:
                async for message in from_session:
                    root = message.message.root
                    if isinstance(root, JSONRPCRequest):
                        params = root.params or {}
                        tool = params.get("name") if root.method == "tools/call" else None
                        self.waiting[root.id] = Waiting(root.method, str(tool) if tool else None)
                    await write.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return
