"""The agent: the turn loop, tools, approvals and modes. Imports no Textual.

The UI and the commands use only what this package exports: the `Session` protocol (what
`AgentSession` does for them) and the events a session publishes (`AgentEvent`).
"""

from __future__ import annotations

from swetui.agent.api import (
    AgentEvent,
    CompactionTrigger,
    McpServersChanged,
    RuleScope,
    ServerStatus,
    Session,
    SessionStats,
    mcp_server_of,
)
from swetui.agent.approvals import ApprovalQueue, UnknownActionError
from swetui.agent.events import (
    ApprovalCancelled,
    ApprovalDecided,
    ApprovalEvent,
    ApprovalRequested,
    CommandStarted,
    Decision,
    EditUndone,
    ModeChanged,
    PendingAction,
    RulesChanged,
)
from swetui.agent.session import AgentSession, SessionBusy
from swetui.agent.tools.base import ToolError, ToolResult
from swetui.agent.turn_events import (
    AnswerChunk,
    CompactionNotice,
    ModelCallFinished,
    ModelCallStarted,
    PlanChanged,
    ReasoningChunk,
    RetrievalDone,
    SessionLimit,
    ToolCallFinished,
    ToolCallStarted,
    TurnEvent,
    TurnFinished,
    TurnStarted,
)

__all__ = [
    "AgentEvent", "AgentSession", "AnswerChunk", "ApprovalCancelled", "ApprovalDecided",
    "ApprovalEvent", "ApprovalQueue", "ApprovalRequested", "CommandStarted",
    "CompactionNotice", "CompactionTrigger", "Decision", "McpServersChanged", "ServerStatus",
    "mcp_server_of", "EditUndone", "ModeChanged",
    "ModelCallFinished", "ModelCallStarted", "PendingAction", "PlanChanged", "ReasoningChunk",
    "RetrievalDone", "RuleScope", "RulesChanged", "Session", "SessionBusy", "SessionLimit",
    "SessionStats",
    "ToolCallFinished", "ToolCallStarted", "ToolError", "ToolResult", "TurnEvent",
    "TurnFinished", "TurnStarted", "UnknownActionError",
]
