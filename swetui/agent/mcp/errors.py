"""Why an MCP call or server failed, each with a message fit to show the user and the model."""

from __future__ import annotations


class ServerUnavailable(Exception):
    """The server is not running; the message says why and what to do."""


class CallFailed(Exception):
    """A call did not produce a result (timeout, unreadable or broken-off answer)."""


class ConnectionLost(Exception):
    """The connection to the server closed during a call (the server is gone)."""
