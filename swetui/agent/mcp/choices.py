"""The user's choices about MCP tools in this workspace: which tools and which servers are
kept out of the context. Remembered in `.swetui/mcp-choices.json` (0600), so a dropped tool
stays dropped in the next session."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from swetui.files import read_small_text
from swetui.paths import write_private

log = logging.getLogger(__name__)


class ToolChoices:
    """Dropped tools (by `mcp__server__tool` name) and dropped servers (by name)."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.tools: set[str] = set()
        self.servers: set[str] = set()
        self.problem: str | None = None
        self._load()

    def _load(self) -> None:
        if self.file is None:
            return
        try:
            data = json.loads(read_small_text(self.file))
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.problem = f"{self.file}: cannot be read ({exc}); starting with every tool"
            return
        if isinstance(data, dict):
            self.tools = {str(n) for n in data.get("dropped_tools", []) if isinstance(n, str)}
            self.servers = {str(n) for n in data.get("dropped_servers", [])
                            if isinstance(n, str)}

    def dropped(self, server: str, tool: str) -> bool:
        return server in self.servers or tool in self.tools

    def set_tool(self, tool: str, dropped: bool) -> bool:
        """Remember a tool dropped or restored; True when that changed anything."""
        before = tool in self.tools
        (self.tools.add if dropped else self.tools.discard)(tool)
        if before != dropped:
            self.save()
        return before != dropped

    def set_server(self, server: str, dropped: bool) -> None:
        (self.servers.add if dropped else self.servers.discard)(server)
        if not dropped:
            prefix = f"mcp__{server}__"
            self.tools = {name for name in self.tools if not name.startswith(prefix)}
        self.save()

    def save(self) -> None:
        if self.file is None:
            return
        data = {"dropped_tools": sorted(self.tools), "dropped_servers": sorted(self.servers)}
        try:
            write_private(self.file, (json.dumps(data, indent=1) + "\n").encode("utf-8"),
                          durable=False)
        except OSError as exc:
            log.warning("cannot save MCP choices: %s", exc)
