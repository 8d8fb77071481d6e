"""The agent: the turn loop, tools, approvals and modes. Imports no Textual.

The UI and the commands use only what this package exports: the `Session` protocol (what
`AgentSession` does for them) and the events a session publishes (`AgentEvent`).
"""

from __future__ import annotations

from swetui.agent.api import *  # noqa: F403 (the public API is api.py's __all__)
from swetui.agent.api import __all__ as _api
from swetui.agent.busy import SessionBusy
from swetui.agent.session import AgentSession

__all__ = [*_api, "AgentSession", "SessionBusy"]
