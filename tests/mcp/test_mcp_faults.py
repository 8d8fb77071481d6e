"""Servers that go wrong, noticed at once: a stdio server that exits while idle is shown
crashed (and can be restarted); a malformed or broken-off answer, over stdio or HTTP, ends the
call with a message instead of waiting out its timeout; a real HTTP server that crashes in
the middle of a call is crashed at once. The servers are real processes or real loopback
sockets (tests/mcp/raw_server.py writes JSON-RPC by hand to misbehave; the crash is the SDK's
own FastMCP server); only the model is scripted."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from swetui.agent.mcp.status import McpServersChanged
from tests.agent.scripted import ScriptedProvider, answer, calls
from tests.mcp.conftest import (
    PATIENT,
    HttpServer,
    open_session,
    raw_entry,
    write_user_config,
)
from tests.mcp.raw_server import answer as raw_answer
from tests.waiting import eventually


def results(session: Any) -> list[Any]:
    return [item for item in session.engine if item.kind.value == "tool_call"]


async def test_a_stdio_server_that_exits_while_idle_is_crashed_at_once(
        workspace: Path, isolated_config: Path, tmp_path: Path) -> None:
    marker = tmp_path / "raw.pid"
    write_user_config(isolated_config, {"mcp": {"servers": {
        "raw": raw_entry(env={"RAW_MARKER": str(marker)})}}})
    provider = ScriptedProvider(answer("hi"), answer("after"), answer("back"))
    session = open_session(workspace, provider)
    told: list[McpServersChanged] = []

    def seen(event: BaseModel) -> None:
        if isinstance(event, McpServersChanged) and event.message:
            told.append(event)

    session.bus.subscribe(seen, McpServersChanged)
    try:
        session.start()
        await session.send("hello")
        assert session.mcp_servers()[0].state == "ready"
        assert "mcp__raw__echo" in [tool.name for tool in provider.requests[-1].tools]
        os.kill(int(marker.read_text()), signal.SIGKILL)  # nothing is being called
        await eventually(lambda: session.mcp_servers()[0].state == "crashed",
                         "the idle server's exit shows")
        [status] = session.mcp_servers()
        assert "process exited" in (status.error or "")
        await eventually(lambda: told, "the user is told")
        assert "raw crashed" in told[-1].message and "/mcp restart raw" in told[-1].message
        # Its tools are not offered while it is down; a restart brings them back.
        await session.send("still there?")
        assert "mcp__raw__echo" not in [tool.name for tool in provider.requests[-1].tools]
        assert "restarted" in await session.restart_mcp_server("raw")
        await session.send("and now?")
        assert "mcp__raw__echo" in [tool.name for tool in provider.requests[-1].tools]
    finally:
        await session.aclose()


async def test_malformed_answers_over_stdio_end_the_call_at_once(
        workspace: Path, isolated_config: Path) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"raw": raw_entry()}}})
    provider = ScriptedProvider(
        calls(("c1", "mcp__raw__noisy", {"text": "fine"})),
        calls(("c2", "mcp__raw__bad_shape", {})),
        calls(("c3", "mcp__raw__cut", {})),
        calls(("c4", "mcp__raw__flood", {"text": "calm"})),
        calls(("c5", "mcp__raw__drop", {})),
        answer("done"))
    session = open_session(workspace, provider, mode="auto")
    try:
        session.start()
        finished = await session.send("try them all")
        assert finished.error is None
        noisy, bad_shape, cut, flood, drop = results(session)
        # 500 lines of noise: the answer after them counts, and the log is not flooded.
        assert not flood.call.is_error and "flood: calm" in flood.content
        logged = [line for line in session.mcp_log("raw") if "noise" in line]
        assert 0 < len(logged) <= 25
        # A stray line on stdout is logged, and the proper answer after it still counts.
        assert not noisy.call.is_error and "noisy: fine" in noisy.content
        assert any("not a valid JSON-RPC message" in line and "a log line" in line
                   for line in session.mcp_log("raw"))
        for item in (bad_shape, cut):
            assert item.call.is_error and "malformed message" in item.content, item.content
            assert "did not answer" not in item.content
        assert drop.call.is_error and "crashed during this call" in drop.content
        assert session.mcp_servers()[0].state == "crashed"
    finally:
        await session.aclose()


class RawHttpServer:
    """A streamable-HTTP MCP endpoint on a loopback socket, JSON-RPC written by hand: each
    POST is answered with JSON (`raw_server.answer`), except `drop`, whose event stream is
    broken off; GET (the server's own stream) is not offered."""

    def __init__(self) -> None:
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/mcp"

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method = head.split(b" ", 1)[0]
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    key, _, value = line.partition(b":")
                    if key.strip().lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length) if length else b""
                if method != b"POST":
                    writer.write(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
                    await writer.drain()
                    continue
                request = json.loads(body)
                params = request.get("params") or {}
                if request.get("method") == "tools/call" and params.get("name") == "drop":
                    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                                 b"transfer-encoding: chunked\r\n\r\n")
                    await writer.drain()
                    writer.transport.abort()  # the answer breaks off; the server stays up
                    return
                lines = raw_answer(request)
                if not lines:
                    writer.write(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
                else:
                    out = lines[-1].encode()
                    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                                 b"content-length: %d\r\n\r\n%s" % (len(out), out))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()


@pytest.fixture
async def raw_http() -> AsyncIterator[RawHttpServer]:
    server = RawHttpServer()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


async def test_malformed_and_broken_http_answers_end_the_call_at_once(
        workspace: Path, isolated_config: Path, raw_http: RawHttpServer) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"web": {
        "url": raw_http.url, "timeout": PATIENT}}}})
    provider = ScriptedProvider(
        calls(("c1", "mcp__web__echo", {"text": "ok"})),
        calls(("c2", "mcp__web__garbage", {})),
        calls(("c3", "mcp__web__bad_shape", {})),
        calls(("c4", "mcp__web__drop", {})),
        calls(("c5", "mcp__web__echo", {"text": "still"})),
        answer("done"))
    session = open_session(workspace, provider, mode="auto")
    try:
        session.start()
        finished = await session.send("try them all")
        assert finished.error is None
        echo, garbage, bad_shape, drop, still = results(session)
        assert "echo: ok" in echo.content
        assert garbage.call.is_error and "could not be read" in garbage.content
        assert "500 Internal Server Error" in garbage.content
        assert bad_shape.call.is_error and "malformed message" in bad_shape.content
        assert drop.call.is_error and "connection broke before the answer" in drop.content
        assert "still running" in drop.content
        for item in (garbage, bad_shape, drop):
            assert "did not answer" not in item.content
        # The server is still there, and so is the session with it.
        assert "echo: still" in still.content
        assert session.mcp_servers()[0].state == "ready"
    finally:
        await session.aclose()


async def test_a_real_http_server_crashing_mid_call_is_crashed_at_once(
        workspace: Path, isolated_config: Path, http_server: HttpServer) -> None:
    write_user_config(isolated_config, {"mcp": {"servers": {"remote": {
        "url": http_server.url, "timeout": PATIENT}}}})
    provider = ScriptedProvider(calls(("c1", "mcp__remote__crash", {})), answer("gone"))
    session = open_session(workspace, provider, mode="auto")
    try:
        session.start()
        finished = await session.send("crash it")
        assert finished.error is None
        [crash] = results(session)
        assert crash.call.is_error and "crashed during this call" in crash.content, \
            crash.content
        assert "restart" in crash.content
        assert session.mcp_servers()[0].state == "crashed"
    finally:
        await session.aclose()
