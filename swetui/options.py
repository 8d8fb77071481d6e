"""What the command line hands to the full-screen app and the headless commands."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
