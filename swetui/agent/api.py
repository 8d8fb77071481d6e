"""The agent's public API: the session the UI and the commands drive (`Session`) and every
event published on its bus (`AgentEvent`).

The UI and the commands reach the agent only through these names (and `swetui.agent`, which
re-exports them with `AgentSession`, the implementation); an import-linter contract in
pyproject.toml forbids them any other module of the agent. Who publishes what:

- the engine (`swetui.engine.events`): items, budget, notices, compaction;
- the approval queue and the toolbox (`swetui.agent.events`): approvals, commands, mode,
  rules, undo;
- the MCP servers (`swetui.agent.mcp.status`): `McpServersChanged`;
- the turn loop (`swetui.agent.turn_events`): the turn, its model calls, stream chunks and
  tool calls (one `ToolCallStarted` and one `ToolCallFinished` per call), in transcript
  order.

The providers' stream events (`swetui.providers.events`) stay between a provider and the
turn loop: they are never published.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

from swetui.agent.approvals import ApprovalQueue, UnknownActionError
from swetui.agent.change_cost import (
    CACHE_STATES,
    ChangePrice,
    CompactionChange,
    ContextChange,
    EditChange,
    ItemsChange,
    ModelChange,
    toggle_action,
)
from swetui.agent.cost import Cost, format_cost, format_usd
from swetui.agent.diffs import NO_NEWLINE, Hunk
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
    Remember,
    RulesChanged,
)
from swetui.agent.icons import tool_icon
from swetui.agent.mcp.calls import shown_arguments as mcp_arguments_text
from swetui.agent.mcp.names import server_of as mcp_server_of
from swetui.agent.mcp.servers import McpServers
from swetui.agent.mcp.status import McpServersChanged, ServerStatus
from swetui.agent.policy import protection
from swetui.agent.project_init import InitOutcome, MemoryExists, write_project_memory
from swetui.agent.rules import Scope as RuleScope
from swetui.agent.rules import WorkspaceRules
from swetui.agent.sandbox import secret_files
from swetui.agent.spending import SpendCheck, SpendingCap, SpendingPrompt
from swetui.agent.stats import SessionStats
from swetui.agent.tools.base import ToolError, ToolResult
from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.agent.turn_events import (
    AnswerChunk,
    CommandShown,
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
from swetui.agent.usage_log import last_turn_usage, restore_cache_prefix, restore_figures
from swetui.config import ApprovalRule, Mode
from swetui.engine.bus import EventBus
from swetui.engine.compaction.plan import CompactionPlan
from swetui.engine.context import ContextEngine
from swetui.engine.events import CompactionFinished, EngineEvent
from swetui.engine.items import ContextItem
from swetui.engine.project_scan import Progress
from swetui.engine.store import SessionInfo
from swetui.engine.workspace import Workspace
from swetui.providers.usage import Usage as Usage
from swetui.providers.usage import usage_line as usage_line

__all__ = ["InitOutcome", "MemoryExists", "write_project_memory", "secret_files",
    # the session and the events it publishes
    "AgentEvent", "Session", "CompactionTrigger", "SessionStats",
    "AnswerChunk", "CommandShown", "CompactionNotice", "ModelCallFinished", "ModelCallStarted",
    "PlanChanged",
    "ReasoningChunk", "RetrievalDone", "SessionLimit", "ToolCallFinished", "ToolCallStarted",
    "TurnEvent", "TurnFinished", "TurnStarted",
    # approvals: the queue, what waits in it and what the user decides
    "ApprovalCancelled", "ApprovalDecided", "ApprovalEvent", "ApprovalQueue",
    "ApprovalRequested", "CommandStarted", "Decision", "EditUndone", "ModeChanged",
    "PendingAction", "Remember", "RulesChanged", "UnknownActionError", "protection",
    # remembered rules, diffs, tools, usage
    "RuleScope", "WorkspaceRules", "Hunk", "NO_NEWLINE", "TOOL_SCHEMAS", "ToolError",
    "ToolResult", "tool_icon", "Usage", "usage_line",
    # what model calls cost, and the provider's cache
    "Cost", "format_cost", "format_usd", "last_turn_usage", "restore_cache_prefix",
    "restore_figures",
    # the price of a change before it is made, and the spending cap
    "CACHE_STATES", "ChangePrice", "CompactionChange", "ContextChange", "EditChange",
    "ItemsChange", "ModelChange", "toggle_action", "SpendCheck", "SpendingCap",
    "SpendingPrompt",
    # MCP servers
    "McpServers", "McpServersChanged", "ServerStatus", "mcp_arguments_text", "mcp_server_of",
]

AgentEvent = EngineEvent | ApprovalEvent | TurnEvent | McpServersChanged
"""Every event a session publishes on its bus."""

CompactionTrigger = Literal["auto", "manual", "selection"]


class Session(Protocol):
    """What the UI and the commands may use of an open agent session."""

    model: str
    """The working model's spec (`offline`, `openai:gpt-4o`, …)."""

    @property
    def workspace(self) -> Workspace: ...
    @property
    def engine(self) -> ContextEngine: ...
    @property
    def bus(self) -> EventBus: ...
    @property
    def queue(self) -> ApprovalQueue: ...
    @property
    def mode(self) -> Mode: ...
    @property
    def busy(self) -> bool: ...
    @property
    def session_id(self) -> str: ...
    @property
    def notices(self) -> list[str]: ...
    @property
    def notes_path(self) -> Path: ...
    @property
    def restored(self) -> list[PendingAction]: ...

    # turns
    async def send(self, text: str) -> TurnFinished: ...
    def cancel(self) -> bool: ...
    def transcript(self) -> list[TurnEvent]: ...

    # compaction
    def preview_compaction(self, item_ids: list[str] | None = None,
                           instructions: str | None = None) -> CompactionPlan: ...
    async def compact(self, trigger: CompactionTrigger = "manual",
                      instructions: str | None = None,
                      item_ids: list[str] | None = None) -> CompactionFinished | None: ...
    def undo_compaction(self) -> str: ...
    def handoff(self) -> Path | None: ...

    # edits, files, settings
    def undo_edit(self) -> str: ...
    def add_path(self, path: str) -> ContextItem: ...
    def refresh_item(self, item_id: str) -> ContextItem: ...
    def rules(self) -> list[tuple[RuleScope, ApprovalRule]]: ...
    def remove_rule(self, number: int) -> str: ...
    def set_mode(self, mode: str) -> None: ...
    def set_model(self, spec: str) -> None: ...
    async def available_models(self, spec: str | None = None) -> list[str] | None: ...
    async def init_memory(self, *, replace: bool = False,
                          progress: Progress | None = None) -> InitOutcome: ...
    def stats(self) -> SessionStats: ...
    def session_cost(self) -> Cost: ...
    def price_change(self, change: ContextChange) -> ChangePrice:
        """What `change` would do to the next request's tokens, cache and cost, worked out
        before it is made (nothing changes)."""
    @property
    def spending(self) -> SpendingCap: ...
    def sessions(self) -> Sequence[SessionInfo]: ...
    def sandbox_notice(self) -> str | None: ...

    # MCP servers: every configured server (state, tools, token costs); restart one (says
    # what happened); apply a just-trusted .mcp.json now (what starts and stops, or None);
    # drop or restore a server's tools (remembered; says the tokens saved); its stderr tail
    def mcp_servers(self) -> list[ServerStatus]: ...
    async def restart_mcp_server(self, name: str) -> str: ...
    async def reload_mcp_servers(self) -> str | None: ...
    def set_mcp_server_dropped(self, name: str, dropped: bool) -> str: ...
    def mcp_log(self, name: str) -> list[str]: ...

    # lifetime
    def start(self) -> None: ...
    def start_servers(self) -> None: ...
    async def watch(self) -> None: ...
    async def restored_outcomes(self) -> list[tuple[PendingAction, ToolResult]]: ...
    async def aclose(self) -> None: ...
