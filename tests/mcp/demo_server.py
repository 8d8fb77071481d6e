"""A real MCP server for the tests, written with the SDK's FastMCP.

    python demo_server.py stdio [NAME] [TOOLS]   over stdin/stdout
    python demo_server.py http FD [NAME]         streamable HTTP on a listening socket
                                                 handed over as file descriptor FD

NAME prefixes the extra tools; TOOLS adds that many padded tools (for deferral).
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.fastmcp import FastMCP, Image

server = FastMCP("demo")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers. Returns their sum."""
    return a + b


@server.tool()
def big(size: int) -> str:
    """Return `size` characters of text."""
    line = "0123456789abcdef" * 4 + "\n"
    return (line * (size // len(line) + 1))[:size]


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    sys.stderr.write("demo server: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def hang() -> str:
    """Never answer."""
    while True:
        time.sleep(1)


@server.tool()
def picture() -> Image:
    """Return a small PNG image."""
    return Image(data=b"\x89PNG\r\n\x1a\n" + b"\x00" * 1000, format="png")


@server.tool()
def secret_env() -> str:
    """Return the DEMO_TOKEN variable of the server's environment."""
    return f"token={os.environ.get('DEMO_TOKEN', '')}"


def _padded(count: int) -> None:
    for number in range(count):
        def tool(query: str, limit: int = 10, number: int = number) -> str:
            return f"result {number} for {query}"

        tool.__name__ = f"search_{number}"
        server.add_tool(tool, name=f"search_{number}", description=(
            f"Search collection number {number} of the demo catalogue for documents that "
            "match the query, returning titles, authors, dates and short abstracts; supports "
            "paging through long result lists with the limit argument."))


if __name__ == "__main__":
    if os.environ.get("DEMO_MARKER"):  # proves the server started, and which process it is
        with open(os.environ["DEMO_MARKER"], "w") as marker:
            marker.write(str(os.getpid()))
    sys.stderr.write("demo server: starting\n")
    sys.stderr.flush()
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        _padded(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
        server.run("stdio")
    else:
        import uvicorn

        fd = int(sys.argv[2])
        _padded(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
        uvicorn.run(server.streamable_http_app(), fd=fd, log_level="warning")
