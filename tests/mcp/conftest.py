"""Real MCP servers for the tests (tests/mcp/demo_server.py, written with the SDK's FastMCP)
over stdio and streamable HTTP on loopback, and sessions configured to use them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from tests.agent.scripted import ScriptedProvider

DEMO = str(Path(__file__).with_name("demo_server.py"))
RAW = str(Path(__file__).with_name("raw_server.py"))
PATIENT = 100
"""A call timeout no test should reach: a message that came at once did not wait for it."""


def stdio_entry(*extra: str, **fields: Any) -> dict[str, Any]:
    """A `.mcp.json` / config entry that runs the demo server over stdio."""
    return {"command": sys.executable, "args": [DEMO, "stdio", *extra], **fields}


def raw_entry(*args: str, **fields: Any) -> dict[str, Any]:
    """An entry that runs tests/mcp/raw_server.py over stdio (no SDK: it starts at once)."""
    return {"command": sys.executable, "args": [RAW, *args], "timeout": PATIENT, **fields}


def write_user_config(config_home: Path, data: dict[str, Any]) -> None:
    folder = config_home / "swetui"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(tomli_w.dumps(data))


def open_session(workspace: Path, provider: ScriptedProvider, *, mode: str = "ask",
                 env: dict[str, str] | None = None,
                 continue_last: bool = False) -> AgentSession:
    options = LaunchOptions(path=workspace, mode=mode, watch=False,
                            continue_last=continue_last)
    return AgentSession.open(options, env=dict(os.environ) if env is None else env,
                             provider=provider)


@dataclass
class HttpServer:
    url: str
    process: subprocess.Popen[bytes]


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[HttpServer]:
    """The demo server over streamable HTTP on a loopback socket bound here and handed to
    the server as a file descriptor (no other process can take the port meanwhile); only
    the server keeps it open, so once the server is gone, connecting is refused."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    log = (tmp_path / "http-server.log").open("w")
    process = subprocess.Popen([sys.executable, DEMO, "http", str(sock.fileno())],
                               pass_fds=(sock.fileno(),), stdout=log, stderr=log,
                               start_new_session=True)
    sock.close()
    try:
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", process)
    finally:
        process.kill()
        process.wait(timeout=30)
        log.close()


def mcp_json(root: Path, servers: dict[str, Any]) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
