"""The agent: the turn loop, tools, approvals and modes. Imports no Textual.

Public names are imported lazily so `import swetui.agent` stays cheap at start-up.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ApprovalQueue": "swetui.agent.approvals",
    "UnknownActionError": "swetui.agent.approvals",
    "PendingAction": "swetui.agent.events",
    "Decision": "swetui.agent.events",
    "Policy": "swetui.agent.policy",
    "PolicyDecision": "swetui.agent.policy",
    "RuleBook": "swetui.agent.rules",
    "Checkpoints": "swetui.agent.checkpoints",
    "Hunk": "swetui.agent.diffs",
    "Toolbox": "swetui.agent.toolbox",
    "ToolResult": "swetui.agent.tools.base",
    "ToolError": "swetui.agent.tools.base",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'swetui.agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
