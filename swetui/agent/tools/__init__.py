"""The agent's tools: schemas the model sees, and the results and errors they produce.

The tool implementations live in the submodules (`readers`, `files`, `shell`); the
`Toolbox` in `swetui.agent.toolbox` runs them with approvals.
"""

from swetui.agent.tools.base import ToolError, ToolResult
from swetui.agent.tools.schemas import TOOL_NAMES, TOOL_SCHEMAS

__all__ = ["TOOL_NAMES", "TOOL_SCHEMAS", "ToolError", "ToolResult"]
