"""The error a session raises when asked for something while the agent is working."""

from __future__ import annotations


class SessionBusy(RuntimeError):
    """A turn (or `/init`) is already running."""
