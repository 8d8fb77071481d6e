"""Themes are data: one TOML file per theme, validated by pydantic, registered with Textual.

Bundled themes live in the top-level `themes/` directory (shipped as package data when
installed); the user's own go in `$XDG_CONFIG_HOME/swetui/themes/`. A file that fails to
load is reported once, in one line, and never stops the app.
"""

from __future__ import annotations

import sys
import sysconfig
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from swetui.files import read_error, read_small_text
from swetui.paths import user_themes_dir

DEFAULT_THEME = "swetui-dark"
FALLBACK_THEME = "textual-dark"
"""Used when even the bundled default cannot be found (a broken install)."""


class ThemeFile(BaseModel):
    """One theme file: the colours Textual derives its whole palette from."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    """The name `--theme` and the palette use."""
    dark: bool = True
    """Whether this is a dark theme (Textual derives shades differently)."""
    primary: str
    """The main accent: focused borders, the gauge bar, links."""
    secondary: str | None = None
    accent: str | None = None
    warning: str | None = None
    error: str | None = None
    success: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    variables: dict[str, str] = Field(default_factory=dict)
    """Extra Textual CSS variables (e.g. `footer-key-foreground`)."""

    @field_validator("primary", "secondary", "accent", "warning", "error", "success",
                     "foreground", "background", "surface", "panel", "boost")
    @classmethod
    def _is_colour(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Color.parse(value)
            except ColorParseError:
                raise ValueError(f"{value!r} is not a colour") from None
        return value

    def to_theme(self) -> Theme:
        """The Textual theme this file describes."""
        return Theme(name=self.name, primary=self.primary, secondary=self.secondary,
                     accent=self.accent, warning=self.warning, error=self.error,
                     success=self.success, foreground=self.foreground,
                     background=self.background, surface=self.surface, panel=self.panel,
                     boost=self.boost, dark=self.dark, variables=dict(self.variables))


class ThemeError(Exception):
    """A theme file could not be used; the message names the file and the problem."""


def load_theme_file(path: Path) -> Theme:
    """Read and validate one theme file."""
    try:
        data = tomllib.loads(read_small_text(path, 1_000_000))
    except OSError as exc:
        raise ThemeError(f"theme {read_error(str(path), exc)}") from None
    except UnicodeDecodeError:
        raise ThemeError(f"theme {path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"theme {path}: not valid TOML: {exc}") from None
    data.setdefault("name", path.stem)
    try:
        return ThemeFile.model_validate(data).to_theme()
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "(top level)"
        message = "unknown setting" if error["type"] == "extra_forbidden" else error["msg"]
        raise ThemeError(f"theme {path}: {where}: {message}") from None


def bundled_themes_dirs() -> list[Path]:
    """Where the bundled theme files can be: package data, a source checkout, data-files."""
    candidates: list[Path] = []
    try:
        shipped = resources.files("swetui") / "themes"
        candidates.append(Path(str(shipped)))
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - a zipped install
        pass
    candidates.append(Path(__file__).resolve().parents[2] / "themes")
    candidates.append(Path(sysconfig.get_path("data")) / "share" / "swetui" / "themes")
    candidates.append(Path(sys.prefix) / "share" / "swetui" / "themes")
    seen: list[Path] = []
    for candidate in candidates:
        if candidate.is_dir() and candidate not in seen:
            seen.append(candidate)
    return seen


@dataclass
class ThemeCatalog:
    """The themes found at start, and the files that failed (each reported once)."""

    themes: dict[str, Theme] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def pick(self, wanted: str | None) -> tuple[str, str | None]:
        """The theme to use for `wanted` and a message when it had to fall back."""
        if not wanted:
            wanted = DEFAULT_THEME
        if wanted in self.themes:
            return wanted, None
        fallback = DEFAULT_THEME if DEFAULT_THEME in self.themes else FALLBACK_THEME
        known = ", ".join(sorted(self.themes)) or "none"
        return fallback, f"unknown theme {wanted!r} (known: {known}); using {fallback}"


def load_themes(directories: Iterable[Path] | None = None) -> ThemeCatalog:
    """Load every `*.toml` in the bundled then the user's directory (user files win)."""
    if directories is None:
        directories = [*bundled_themes_dirs(), user_themes_dir()]
    catalog = ThemeCatalog()
    for directory in directories:
        try:
            files = sorted(directory.glob("*.toml"))
        except OSError:
            continue
        for path in files:
            try:
                theme = load_theme_file(path)
            except ThemeError as exc:
                catalog.errors.append(str(exc))
                continue
            catalog.themes[theme.name] = theme
    return catalog
