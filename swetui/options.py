"""What the command line hands to the full-screen app and the headless commands, and the
settings they make together with the config files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swetui.config import ConfigError, Settings, load_settings
from swetui.engine.workspace import check_workspace


@dataclass(frozen=True)
class LaunchOptions:
    """The user's choices from the command line (None: use config / defaults)."""

    path: Path = Path(".")
    model: str | None = None
    mode: str | None = None
    theme: str | None = None
    context_limit: int | None = None
    resume: str | None = None
    continue_last: bool = False
    yes: bool = False
    watch: bool = True
    """Watch the workspace for file changes (tests turn it off)."""
    origin: str | None = None
    """Where a new session starts: "screen" (the full-screen app) or "run" (headless). The
    screen's --continue prefers sessions started on screen."""


def settings_for(options: LaunchOptions) -> tuple[Path, Settings]:
    """The checked workspace root, and the settings from the config files with the command
    line's overrides on top."""
    root = check_workspace(options.path)
    settings = load_settings(root)
    updates: dict[str, Any] = {}
    if options.context_limit is not None:
        if not 1_000 <= options.context_limit <= 10_000_000:
            raise ConfigError("--context-limit must be between 1,000 and 10,000,000 tokens")
        updates["context_limit"] = options.context_limit
    if options.mode is not None:
        updates["mode"] = options.mode
    if options.model is not None:
        updates["model"] = options.model
    if options.theme is not None:
        updates["theme"] = options.theme
    return root, settings.model_copy(update=updates)
