"""Themes are data: bundled files load, user files are added, a broken one is reported once."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette

from swetui.paths import user_themes_dir
from swetui.ui.theme_choice import chosen_theme
from swetui.ui.themes import (
    DEFAULT_THEME,
    ThemeError,
    bundled_themes_dirs,
    load_theme_file,
    load_themes,
)
from tests.ui.waits import notices, palette, until

REPO_THEMES = Path(__file__).resolve().parents[2] / "themes"


def test_bundled_themes_load_and_one_is_light() -> None:
    catalog = load_themes([REPO_THEMES])
    assert catalog.errors == []
    assert len(catalog.themes) >= 3
    assert DEFAULT_THEME in catalog.themes
    assert any(not theme.dark for theme in catalog.themes.values())
    assert REPO_THEMES in bundled_themes_dirs()


def test_broken_theme_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nprimary = "not-a-colour"\n')
    with pytest.raises(ThemeError, match=r"bad\.toml: primary: .*not a colour"):
        load_theme_file(bad)
    unknown = tmp_path / "odd.toml"
    unknown.write_text('primary = "#112233"\nsparkle = true\n')
    with pytest.raises(ThemeError, match="sparkle: unknown setting"):
        load_theme_file(unknown)
    broken = tmp_path / "broken.toml"
    broken.write_text("primary = \n")
    with pytest.raises(ThemeError, match="not valid TOML"):
        load_theme_file(broken)


def test_unknown_theme_falls_back_with_a_message() -> None:
    catalog = load_themes([REPO_THEMES])
    name, problem = catalog.pick("no-such-theme")
    assert name == DEFAULT_THEME
    assert problem is not None and "no-such-theme" in problem


async def test_user_theme_registered_and_broken_one_reported_once(make_app) -> None:
    themes = user_themes_dir()
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text('name = "mine"\ndark = false\nprimary = "#AA3377"\n')
    (themes / "broken.toml").write_text('name = "broken"\nprimary = 12\n')
    app = make_app(theme="broken")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any("unknown theme 'broken'" in note.message
                                       for note in notices(app)),
                    "the unknown theme was reported")
        assert "mine" in app.available_themes
        assert app.theme == DEFAULT_THEME
        messages = [note.message for note in notices(app)]
        assert sum("broken.toml" in message for message in messages) == 1
        assert any("unknown theme 'broken'" in message for message in messages)


async def test_theme_flag_and_palette_switch(make_app) -> None:
    app = make_app(theme="swetui-dusk")
    async with app.run_test(size=(120, 30)) as pilot:
        assert app.theme == "swetui-dusk"
        await palette(pilot, "swetui-lig", expect="swetui-light")
        await until(pilot, lambda: app.theme == "swetui-light", "the light theme is on")


async def test_one_list_of_themes_commands_first_and_the_choice_remembered(make_app) -> None:
    app = make_app()
    ours = set(app.catalog.themes)
    async with app.run_test(size=(120, 30)) as pilot:
        # One list: the palette, Textual's own theme picker and --theme's message agree.
        assert set(app.available_themes) == ours
        _, problem = app.catalog.pick("nosuch")
        assert problem is not None and all(name in problem for name in ours)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        palette_screen = app.screen
        options = palette_screen.query_one(CommandList)
        await until(pilot, lambda: options.option_count > 5
                    and not any(worker.node is palette_screen for worker in app.workers),
                    "the palette listed its commands")
        shown = [str(options.get_option_at_index(index).prompt)
                 for index in range(options.option_count)]
        assert not any(row.startswith("Theme: ") for row in shown[:options.option_count]), \
            shown  # themes come when asked for (type "theme"), not before every command
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is not palette_screen, "the palette closed")
        await palette(pilot, "swetui-lig", expect="swetui-light")
        await until(pilot, lambda: app.theme == "swetui-light", "the light theme is on")
        await until(pilot, lambda: chosen_theme() == "swetui-light", "the choice is written")
    again = make_app()
    async with again.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: again.theme == "swetui-light",
                    "the chosen theme is back after a restart")
    flagged = make_app(theme="swetui-dusk")
    async with flagged.run_test(size=(120, 30)) as pilot:
        assert flagged.theme == "swetui-dusk"  # --theme still wins for one run
