"""The order a cold build parses a workspace's files in, so that a request made while it
runs finds the files most likely to matter: those already in context, then source before
tests before documentation and examples, and within each the most recently modified first."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from pathlib import Path

from swetui.engine.symbols.file_roles import FileRole, role_of

IN_CONTEXT, SOURCE, TESTS, DOCS = range(4)
_GROUPS = {FileRole.SOURCE: SOURCE, FileRole.TESTS: TESTS}


def group_of(rel: str) -> int:
    """SOURCE, TESTS or DOCS (documentation, examples, vendored and generated code), by the
    file's role (`file_roles`)."""
    return _GROUPS.get(role_of(rel), DOCS)


def _mtime(root: Path, rel: str) -> int:
    try:
        return os.stat(root / rel, follow_symlinks=False).st_mtime_ns
    except OSError:
        return 0


def build_order(root: Path, rels: Iterable[str], first: Collection[str] = ()) -> list[str]:
    """`rels` in the order to parse them: the paths in `first` (files already in context),
    then by `group_of`, the newest first within a group, then by path."""
    return sorted(rels, key=lambda rel: (IN_CONTEXT if rel in first else group_of(rel),
                                         -_mtime(root, rel), rel))
