"""Trusting a test workspace's shipped files, as `swetui trust --yes` would."""

from __future__ import annotations

from pathlib import Path

from swetui.trust import TrustStore


def trust_workspace(root: Path) -> None:
    """Record the current `.swetui/config.toml` and `.mcp.json` of `root` as trusted (in the
    test's own config home)."""
    store = TrustStore()
    store.trust(store.state(root))
