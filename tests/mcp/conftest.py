"""Real MCP servers for the tests (tests/mcp/demo_server.py, written with the SDK's FastMCP)
over stdio and streamable HTTP on loopback, and sessions configured to use them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from tests.agent.scripted import ScriptedProvider

DEMO = str(Path(__file__).with_name("demo_server.py"))


def stdio_entry(*extra: str, **fields: Any) -> dict[str, Any]:
    """A `.mcp.json` / config entry that runs the demo server over stdio."""
    return {"command": sys.executable, "args": [DEMO, "stdio", *extra], **fields}


def write_user_config(config_home: Path, data: dict[str, Any]) -> None:
    folder = config_home / "swetui"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(tomli_w.dumps(data))


def open_session(workspace: Path, provider: ScriptedProvider, *, mode: str = "ask",
                 env: dict[str, str] | None = None) -> AgentSession:
    options = LaunchOptions(path=workspace, mode=mode, watch=False)
    return AgentSession.open(options, env=dict(os.environ) if env is None else env,
                             provider=provider)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """The demo server over streamable HTTP on a loopback socket this test holds (handed to
    the server as a file descriptor, so no other process can take the port meanwhile)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    log = (tmp_path / "http-server.log").open("w")
    process = subprocess.Popen([sys.executable, DEMO, "http", str(sock.fileno())],
                               pass_fds=(sock.fileno(),), stdout=log, stderr=log,
                               start_new_session=True)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(timeout=30)
        sock.close()
        log.close()


def mcp_json(root: Path, servers: dict[str, Any]) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
