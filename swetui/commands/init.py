"""`swetui init`: write SWETUI.md."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.project_memory import build_project_memory
from swetui.engine.workspace import check_workspace


def init_memory_file(path: Path, *, force: bool = False) -> int:
    root = check_workspace(path)
    target = root / "SWETUI.md"
    if target.exists() and not force:
        print(f"swetui: {target} exists; use --force to overwrite it")
        return 1
    try:
        target.write_text(build_project_memory(root), encoding="utf-8")
    except OSError as exc:
        print(f"swetui: cannot write {target}: {exc.strerror or exc}")
        return 1
    print(f"Wrote {target}")
    return 0
