"""`swetui sessions`: the workspace's sessions, newest first."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from swetui.agent import format_usd
from swetui.engine.store import SessionInfo, list_sessions
from swetui.engine.workspace import check_workspace
from swetui.paths import WorkspacePaths
from swetui.text import terminal_safe


def _cost(info: SessionInfo) -> str:
    """`$0.0150`; `$0.0150+?` when some calls have no known price; `?` when none has."""
    if info.unpriced_calls and not info.cost_usd:
        return "?"
    return format_usd(info.cost_usd) + ("+?" if info.unpriced_calls else "")


def show_sessions(path: Path) -> int:
    root = check_workspace(path)
    sessions = list_sessions(WorkspacePaths(root).sessions)
    if not sessions:
        print(f"No sessions in {terminal_safe(str(root))} yet.")
        return 0
    for info in sessions:
        when = datetime.fromtimestamp(info.modified).strftime("%Y-%m-%d %H:%M")
        title = terminal_safe(info.title, newlines=False)
        if info.origin == "run":
            title = f"(run) {title}"
        print(f"{terminal_safe(info.session_id)}  {when}  {info.events:>5} events  "
              f"{_cost(info):>9}  {title}")
    print("\nCost: what each session's model calls cost (? : a price unknown to genai-prices "
          "and the config, or calls logged before swetui kept costs).")
    print("\nReopen one with: swetui --resume ID   (or swetui --continue: the newest started on "
          "screen; (run) marks a headless swetui run)")
    return 0
