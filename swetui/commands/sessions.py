"""`swetui sessions`: the workspace's sessions, newest first."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from swetui.engine.store import list_sessions
from swetui.engine.workspace import check_workspace
from swetui.paths import WorkspacePaths
from swetui.text import terminal_safe


def show_sessions(path: Path) -> int:
    root = check_workspace(path)
    sessions = list_sessions(WorkspacePaths(root).sessions)
    if not sessions:
        print(f"No sessions in {terminal_safe(str(root))} yet.")
        return 0
    for info in sessions:
        when = datetime.fromtimestamp(info.modified).strftime("%Y-%m-%d %H:%M")
        title = terminal_safe(info.title, newlines=False)
        print(f"{terminal_safe(info.session_id)}  {when}  {info.events:>5} events  {title}")
    print("\nReopen one with: swetui --resume ID   (or swetui --continue for the newest)")
    return 0
