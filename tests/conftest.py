"""Shared fixtures: every test gets its own config home, so no user config leaks in."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for name in ("SWETUI_MODEL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                 "ANTHROPIC_BASE_URL", "OLLAMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small repository-like workspace."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README.md").write_text("# Demo\n\nA demo project for swetui tests.\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    return root
