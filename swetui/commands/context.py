"""`swetui context`: what the next request would contain, as a table or as JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from swetui.agent import (
    TOOL_SCHEMAS,
)
from swetui.commands.mcp import mcp_statuses, server_report
from swetui.engine.budget import Budget
from swetui.engine.context import ContextEngine
from swetui.engine.workspace import open_workspace
from swetui.options import LaunchOptions, settings_for
from swetui.text import terminal_safe
from swetui.trust_review import workspace_notices


def context_report(engine: ContextEngine, budget: Budget) -> dict[str, Any]:
    """The JSON shape of `swetui context --json`."""
    return {
        "limit": budget.limit,
        "threshold": budget.threshold,
        "threshold_tokens": budget.threshold_tokens,
        "total": budget.total,
        "percent": round(budget.percent, 2),
        "free": budget.free,
        "needs_compaction": budget.needs_compaction,
        "encoding": engine.counter.encoding_name,
        "layers": [{"name": row.name.value, "tokens": row.tokens, "budget": row.budget,
                    "share": round(row.share, 4), "over": row.over} for row in budget.layers],
        "items": [{"id": item.id, "layer": item.effective_layer.value, "kind": item.kind.value,
                   "title": item.title, "tokens": engine.sent_tokens(item.id) or item.tokens,
                   "state": item.state.value, "pinned": item.pinned,
                   "edited": item.edited, "path": item.source.path} for item in engine],
    }


def show_context(options: LaunchOptions, *, as_json: bool) -> int:
    root, settings = settings_for(options)
    workspace = open_workspace(root, settings, TOOL_SCHEMAS, model=settings.model or "",
                               resume=options.resume, continue_last=options.continue_last)
    workspace.notices.extend(workspace_notices(root))
    engine = workspace.engine
    servers = asyncio.run(mcp_statuses(root, settings, engine))  # their tools are items too
    budget = engine.budget()
    report = context_report(engine, budget)
    report["mcp"] = [{key: value for key, value in server_report(status).items()
                      if key != "tool_list"} for status in servers]
    for notice in workspace.notices:
        print(f"swetui: {terminal_safe(notice)}", file=sys.stderr)
    if as_json:
        report["workspace"] = str(root)
        report["notices"] = workspace.notices
        print(json.dumps(report, indent=2))
        return 0
    _print_tables(str(root), report)
    return 0


def _print_tables(root: str, report: dict[str, Any]) -> None:
    # Piped output keeps whole lines (for grep and logs); a terminal uses its own width.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    shown = escape(terminal_safe(root, newlines=False))
    console.print(f"[b]{shown}[/b]  {report['total']:,} of {report['limit']:,} tokens "
                  f"({report['percent']:.1f}%), compaction at {report['threshold']:.0%} "
                  f"({report['threshold_tokens']:,}); tokenizer {report['encoding']}",
                  soft_wrap=True)
    layers = Table("layer", "tokens", "budget", "share", title="Layers", title_justify="left")
    for row in report["layers"]:
        budget = f"{row['budget']:,}" if row["budget"] is not None else "—"
        style = "bold red" if row["over"] else ""
        layers.add_row(row["name"], f"{row['tokens']:,}", budget, f"{row['share']:.1%}",
                       style=style)
    console.print(layers)
    items = Table("id", "layer", "kind", "title", "tokens", "state", "pinned", title="Items",
                  title_justify="left")
    for item in report["items"]:
        items.add_row(item["id"], item["layer"], item["kind"],
                      Text(terminal_safe(item["title"], newlines=False)),
                      f"{item['tokens']:,}",
                      item["state"] + (" (edited)" if item["edited"] else ""),
                      "yes" if item["pinned"] else "")
    console.print(items)
    if report.get("mcp"):
        servers = Table("server", "state", "tools", "sent", "full schemas", title="MCP servers",
                        title_justify="left")
        for server in report["mcp"]:
            servers.add_row(Text(terminal_safe(server["name"], newlines=False)),
                            server["state"], str(server["tools"]),
                            f"{server['sent_tokens']:,}", f"{server['tokens']:,}")
        console.print(servers)
