"""The order a cold build parses a workspace's files in, so that a request made while it
runs finds the files most likely to matter: those already in context, then source before
tests before documentation and examples, and within each the most recently modified first."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from pathlib import Path

TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__"})
DOC_DIRS = frozenset({"docs", "doc", "examples", "example", "benchmarks", "bench", "samples",
                      "vendor", "vendored", "third_party", "thirdparty", "generated"})
IN_CONTEXT, SOURCE, TESTS, DOCS = range(4)


def group_of(rel: str) -> int:
    """SOURCE, TESTS or DOCS (documentation, examples, vendored and generated code)."""
    parts = rel.lower().split("/")
    folders, name = parts[:-1], parts[-1]
    stem = name.rsplit(".", 1)[0]
    if any(part in TEST_DIRS for part in folders) or name.startswith("test_") \
            or stem.endswith(("_test", ".test", "_spec", ".spec")) or stem == "conftest":
        return TESTS
    if any(part in DOC_DIRS for part in folders):
        return DOCS
    return SOURCE


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
