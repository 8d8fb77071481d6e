"""What every part that walks or reads the workspace agrees on: which directories are tools'
and version control's own (never the user's work), and how a binary file is recognised."""

from __future__ import annotations

TOOL_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"})
"""Version control, virtual environments and tool caches."""

BUILD_DIRS = frozenset({"dist", "build", ".idea"})
"""Build output and editor settings: skipped when searching or listing for a person."""

BINARY_SNIFF = 8192
"""Bytes looked at to decide whether a file is binary."""


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first block: the test git and grep use."""
    return b"\x00" in head[:BINARY_SNIFF]
