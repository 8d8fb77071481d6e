"""Where swetui keeps things: the user's XDG directories and the workspace's `.swetui/`.

Directories are created on demand, never at import.
"""

from __future__ import annotations

import os
from pathlib import Path

WORKSPACE_DIR = ".swetui"


def config_home() -> Path:
    """`$XDG_CONFIG_HOME/swetui` (default `~/.config/swetui`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "swetui"


def user_config_file() -> Path:
    return config_home() / "config.toml"


def user_themes_dir() -> Path:
    return config_home() / "themes"


class WorkspacePaths:
    """The paths of one workspace (a repository the user opened)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.dir = self.root / WORKSPACE_DIR

    @property
    def sessions(self) -> Path:
        return self.dir / "sessions"

    @property
    def logs(self) -> Path:
        return self.dir / "logs"

    @property
    def memory(self) -> Path:
        return self.dir / "memory"

    @property
    def session_notes(self) -> Path:
        return self.memory / "session_notes.md"

    @property
    def config_file(self) -> Path:
        return self.dir / "config.toml"

    @property
    def checkpoints(self) -> Path:
        return self.dir / "checkpoints"

    def ensure(self, path: Path) -> Path:
        """Create directory `path` (and parents); raises OSError when the workspace is
        read-only."""
        path.mkdir(parents=True, exist_ok=True)
        return path

    def writable(self) -> bool:
        """True when `.swetui/` exists or can be created and written."""
        try:
            self.ensure(self.dir)
        except OSError:
            return False
        return os.access(self.dir, os.W_OK)
