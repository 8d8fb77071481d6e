"""The map cache's file swapped for a link at the moment SQLite opens it (after swetui
checked it is a plain file of its own): a `git pull` or another process replacing
`.swetui/symbols/map.sqlite` while swetui runs. The link leads to another workspace's map
cache (same schema, so a careless open writes rows into it). Nothing may be written there,
whether the link stays or is swapped back once SQLite followed it. The swap is planted by
an audit hook on `sqlite3.connect`, the exact moment between the check and the open."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from swetui.engine.symbols import cache, cache_file
from swetui.engine.symbols.symbol_map import SymbolMap

PLANS: list[tuple[str, Path, Path, bool]] = []
"""(path, link target, where the real file is kept, swap back after the open)."""


def _swap(event: str, args: tuple[object, ...]) -> None:
    if not PLANS or not event.startswith("sqlite3.connect"):
        return
    path, target, aside, back = PLANS[0]
    if event == "sqlite3.connect" and str(args[0]) == path:
        os.rename(path, aside)
        os.symlink(target, path)
    elif event == "sqlite3.connect/handle" and os.path.islink(path):
        PLANS.pop()
        if back:
            os.unlink(path)
            os.rename(aside, path)


sys.addaudithook(_swap)


def _caches(tmp_path: Path) -> tuple[Path, Path, dict[str, cache.Entry]]:
    """This workspace's map cache and another workspace's (the link's target)."""
    for name in ("ws", "other"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "app.py").write_text(f"def {name}_start():\n    return 1\n")
    mine = tmp_path / "ws" / ".swetui" / "symbols" / "map.sqlite"
    other = tmp_path / "other" / ".swetui" / "symbols" / "map.sqlite"
    for root, path in ((tmp_path / "ws", mine), (tmp_path / "other", other)):
        symbols = SymbolMap(root, cache_path=path)
        symbols.build()
    return mine, other, dict(cache.entries(mine))


@pytest.mark.parametrize("back", [False, True], ids=["link-stays", "swapped-back"])
def test_a_cache_swapped_for_a_link_as_it_is_opened_is_not_written(
        tmp_path: Path, back: bool) -> None:
    mine, other, files = _caches(tmp_path)
    before = other.read_bytes()
    PLANS.append((os.fspath(mine), other, tmp_path / "kept.sqlite", back))
    try:
        with pytest.raises(cache_file.UnsafeLocation):
            cache.save(mine, files, files)
    finally:
        PLANS.clear()
    assert other.read_bytes() == before, "the map cache was written through a link"
