"""Refreshing an item from disk (the inspector's `r`) reads the file again: when that file
has become another name of `.env` since it was read (a hard link, or a link swapped in),
the secret must not become the item's content, which goes to the model with every request."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swetui.engine.items import ItemState
from tests.ui.test_inspector import refreshing_stale_file, request_text
from tests.ui.waits import notices, until

KEY = "sk-ant-planted-REFRESH-0123456789abcdef"


@pytest.mark.parametrize("link", ["symbolic", "hard"])
async def test_refresh_does_not_read_a_file_that_became_a_secret(tmp_path: Path,
                                                                  link: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / ".env").write_text(f"STRIPE_SECRET={KEY}\n")
    if link == "symbolic":
        (tmp_path / "src" / "util.py").symlink_to("../.env")
    else:
        os.link(tmp_path / ".env", tmp_path / "src" / "util.py")
    async with refreshing_stale_file(tmp_path) as (engine, app, pilot):
        await until(pilot, lambda: notices(app), "the refresh said how it went")
        assert any("secrets" in note.message for note in notices(app))
        assert engine.get("f2").state is ItemState.STALE
        assert KEY not in engine.get("f2").content and KEY not in request_text(engine)
