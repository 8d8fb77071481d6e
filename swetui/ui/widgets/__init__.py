"""Reusable widgets of the workspace."""

from swetui.ui.widgets.approvals import ApprovalQueuePane
from swetui.ui.widgets.gauge import BudgetGauge
from swetui.ui.widgets.inspector import ContextInspector

__all__ = ["ApprovalQueuePane", "BudgetGauge", "ContextInspector"]
