"""`swetui init`: write SWETUI.md."""

from __future__ import annotations

import os
from pathlib import Path

from swetui.engine.project_memory import build_project_memory
from swetui.engine.workspace import check_workspace
from swetui.files import atomic_write
from swetui.text import terminal_safe


def init_memory_file(path: Path, *, force: bool = False) -> int:
    root = check_workspace(path)
    target = root / "SWETUI.md"
    if os.path.lexists(target) and not force:
        print(f"swetui: {terminal_safe(str(target))} exists; use --force to overwrite it")
        return 1
    try:  # replaces a link named SWETUI.md instead of writing where it points
        atomic_write(target, build_project_memory(root).encode("utf-8"))
    except OSError as exc:
        print(f"swetui: cannot write {terminal_safe(str(target))}: {exc.strerror or exc}")
        return 1
    print(f"Wrote {terminal_safe(str(target))}")
    return 0
