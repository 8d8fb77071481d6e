"""The context engine: items, tokens, layers, budget, assembly, the event bus and the
session store. Imports no Textual.

Its public API is exported here, each name imported from its module when first used
(`swetui.lazy`), so a headless command still loads only the engine modules it uses
(`swetui sessions` lists sessions without loading tiktoken).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from swetui.lazy import lazy_exports

if TYPE_CHECKING:
    from swetui.engine.assembly import tool_schema_text
    from swetui.engine.budget import Budget, BudgetSettings, LayerUsage
    from swetui.engine.bus import EventBus
    from swetui.engine.compaction import CompactionPlan, Compactor, StructuralCompactor
    from swetui.engine.context import ContextEngine, UnknownItem
    from swetui.engine.events import (
        BudgetChanged,
        CompactionFinished,
        CompactionStarted,
        CompactionUndone,
        EngineNotice,
        ItemsChanged,
    )
    from swetui.engine.items import (
        LAYER_ORDER,
        ContextItem,
        ItemKind,
        ItemState,
        Layer,
        Origin,
        Source,
    )
    from swetui.engine.payloads import (
        AssistantPayload,
        FilePayload,
        HandoffPayload,
        SummaryFacts,
        ToolCallPayload,
    )
    from swetui.engine.store import RecordEvent, SessionInfo, list_sessions, load_session
    from swetui.engine.tokens import MESSAGE_OVERHEAD, TokenCounter
    from swetui.engine.workspace import Workspace, WorkspaceError, check_workspace, open_workspace

_HOMES: dict[str, str] = {
    "tool_schema_text": "swetui.engine.assembly",
    "Budget": "swetui.engine.budget",
    "BudgetSettings": "swetui.engine.budget",
    "LayerUsage": "swetui.engine.budget",
    "EventBus": "swetui.engine.bus",
    "CompactionPlan": "swetui.engine.compaction",
    "Compactor": "swetui.engine.compaction",
    "StructuralCompactor": "swetui.engine.compaction",
    "ContextEngine": "swetui.engine.context",
    "UnknownItem": "swetui.engine.context",
    "BudgetChanged": "swetui.engine.events",
    "CompactionFinished": "swetui.engine.events",
    "CompactionStarted": "swetui.engine.events",
    "CompactionUndone": "swetui.engine.events",
    "EngineNotice": "swetui.engine.events",
    "ItemsChanged": "swetui.engine.events",
    "LAYER_ORDER": "swetui.engine.items",
    "ContextItem": "swetui.engine.items",
    "ItemKind": "swetui.engine.items",
    "ItemState": "swetui.engine.items",
    "Layer": "swetui.engine.items",
    "Origin": "swetui.engine.items",
    "Source": "swetui.engine.items",
    "AssistantPayload": "swetui.engine.payloads",
    "FilePayload": "swetui.engine.payloads",
    "HandoffPayload": "swetui.engine.payloads",
    "SummaryFacts": "swetui.engine.payloads",
    "ToolCallPayload": "swetui.engine.payloads",
    "RecordEvent": "swetui.engine.store",
    "SessionInfo": "swetui.engine.store",
    "list_sessions": "swetui.engine.store",
    "load_session": "swetui.engine.store",
    "MESSAGE_OVERHEAD": "swetui.engine.tokens",
    "TokenCounter": "swetui.engine.tokens",
    "Workspace": "swetui.engine.workspace",
    "WorkspaceError": "swetui.engine.workspace",
    "check_workspace": "swetui.engine.workspace",
    "open_workspace": "swetui.engine.workspace",
}

__getattr__ = lazy_exports(__name__, _HOMES)

__all__ = [
    "AssistantPayload",
    "Budget",
    "BudgetChanged",
    "BudgetSettings",
    "CompactionFinished",
    "CompactionPlan",
    "CompactionStarted",
    "CompactionUndone",
    "Compactor",
    "ContextEngine",
    "ContextItem",
    "EngineNotice",
    "EventBus",
    "FilePayload",
    "HandoffPayload",
    "ItemKind",
    "ItemState",
    "ItemsChanged",
    "LAYER_ORDER",
    "Layer",
    "LayerUsage",
    "MESSAGE_OVERHEAD",
    "Origin",
    "RecordEvent",
    "SessionInfo",
    "Source",
    "StructuralCompactor",
    "SummaryFacts",
    "TokenCounter",
    "ToolCallPayload",
    "UnknownItem",
    "Workspace",
    "WorkspaceError",
    "check_workspace",
    "list_sessions",
    "load_session",
    "open_workspace",
    "tool_schema_text",
]
