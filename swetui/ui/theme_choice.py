"""The theme the user last chose in the palette, remembered between runs.

Kept in `$XDG_CONFIG_HOME/swetui/state.toml` (0600), apart from `config.toml`, which swetui
never rewrites (it is the user's, comments and all). At start `--theme` wins, then this
choice, then `theme` in config.toml.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import tomli_w

from swetui.files import read_small_text
from swetui.paths import config_home, write_private


def state_file() -> Path:
    return config_home() / "state.toml"


def chosen_theme(path: Path | None = None) -> str | None:
    """The remembered choice; None when there is none or the file cannot be read (it is
    rewritten at the next choice, so a damaged one costs only the memory of a theme)."""
    try:
        data = tomllib.loads(read_small_text(path or state_file(), 64_000))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    theme = data.get("theme")
    return theme if isinstance(theme, str) and theme else None


def remember_theme(name: str, path: Path | None = None) -> None:
    """Remember `name` as the user's choice (other remembered keys are kept)."""
    target = path or state_file()
    try:
        data = tomllib.loads(read_small_text(target, 64_000))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = {}
    data["theme"] = name
    write_private(target, tomli_w.dumps(data).encode("utf-8"), durable=False)
