"""A raw MCP server for the fault tests: JSON-RPC written by hand (standard library only, so
it starts in a blink), able to misbehave the ways real servers do.

    python raw_server.py [TOOLS]     over stdin/stdout; TOOLS adds that many padded tools

Its tools: `echo(text)`; `noisy(text)` writes a line that is not JSON-RPC before a proper
answer; `bad_shape` answers with a result that is not an object; `cut` writes half of an
answer and nothing more; `garbage` writes a line that is not JSON and never answers; `drop`
ends the process in the middle of the call (over HTTP: breaks the connection off); `flood`
writes 500 lines of noise before its answer.
`RAW_MARKER` (environment) names a file it writes its pid to.

`answer(request, behaviour)` is shared with the HTTP variant in test_mcp_faults.py.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

TOOLS = ["echo", "noisy", "bad_shape", "cut", "garbage", "drop", "flood"]


def tool_list(padded: int) -> list[dict[str, Any]]:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    tools = [{"name": name, "description": f"The {name} tool.", "inputSchema": schema}
             for name in TOOLS]
    tools += [{"name": f"search_{number}", "inputSchema": schema, "description": (
        f"Search collection number {number} of the raw catalogue for documents that match "
        "the query, returning titles, authors, dates and short abstracts; supports paging "
        "through long result lists.")} for number in range(padded)]
    return tools


def reply(request_id: Any, result: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})


def answer(request: dict[str, Any], padded: int = 0) -> list[str]:
    """The lines the server writes for `request` (none for a notification)."""
    method, request_id = request.get("method"), request.get("id")
    if request_id is None:
        return []
    if method == "initialize":
        return [reply(request_id, {"protocolVersion": request["params"]["protocolVersion"],
                                   "capabilities": {"tools": {}},
                                   "serverInfo": {"name": "raw", "version": "1"}})]
    if method == "tools/list":
        return [reply(request_id, {"tools": tool_list(padded)})]
    if method != "tools/call":
        return [reply(request_id, {})]
    name = request["params"]["name"]
    text = str((request["params"].get("arguments") or {}).get("text", ""))
    done = {"content": [{"type": "text", "text": f"{name}: {text}"}]}
    if name == "noisy":
        return ["debug: a log line printed to stdout by mistake", reply(request_id, done)]
    if name == "flood":
        return [f"noise {number}" for number in range(500)] + [reply(request_id, done)]
    if name == "bad_shape":
        return [reply(request_id, "not an object")]
    if name == "cut":
        return [reply(request_id, done)[:30]]
    if name == "garbage":
        return ["<html>500 Internal Server Error</html>"]
    return [reply(request_id, done)]


def main() -> None:
    if os.environ.get("RAW_MARKER"):
        with open(os.environ["RAW_MARKER"], "w") as marker:
            marker.write(str(os.getpid()))
    padded = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    sys.stderr.write("raw server: starting\n")
    sys.stderr.flush()
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("method") == "tools/call" and request["params"]["name"] == "drop":
            os._exit(3)
        for out in answer(request, padded):
            sys.stdout.write(out + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
