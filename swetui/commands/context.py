"""`swetui context`: what the next request would contain, as a table or as JSON."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from swetui.agent import (
    TOOL_SCHEMAS,
    format_cost,
    last_turn_usage,
    restore_figures,
    secret_files,
)
from swetui.commands.mcp import mcp_statuses, server_report
from swetui.engine.budget import Budget
from swetui.engine.context import ContextEngine
from swetui.engine.workspace import open_workspace
from swetui.options import LaunchOptions, settings_for
from swetui.providers.registry import resolve_model
from swetui.text import terminal_safe
from swetui.trust_review import workspace_notices


def context_report(engine: ContextEngine, budget: Budget) -> dict[str, Any]:
    """The JSON shape of `swetui context --json`."""
    return {
        "limit": budget.limit,
        "threshold": budget.threshold,
        "threshold_tokens": budget.threshold_tokens,
        "total": budget.total,
        "counted": budget.counted,
        "reserve": budget.reserve,
        "free": budget.free,
        "percent": round(budget.percent, 2),
        "measured": budget.measured,
        "measured_estimate": budget.measured_estimate,
        "calibration": round(budget.calibration, 4) if budget.calibration else None,
        "calibration_source": budget.calibration_source,
        "needs_compaction": budget.needs_compaction,
        "encoding": engine.counter.encoding_name,
        "layers": [{"name": row.name.value, "tokens": row.tokens, "budget": row.budget,
                    "share": round(row.share, 4), "over": row.over} for row in budget.layers],
        "items": [{"id": item.id, "layer": item.effective_layer.value, "kind": item.kind.value,
                   "title": item.title, "tokens": engine.sent_tokens(item.id) or item.tokens,
                   "state": item.state.value, "pinned": item.pinned,
                   "edited": item.edited, "path": item.source.path} for item in engine],
    }


def cache_report(engine: ContextEngine, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What of the next request the provider is expected to read from its cache, and what
    the last turn used and cost (from the session log; `restore_figures` ran)."""
    result = engine.assemble()
    view = engine.cache_view(time.monotonic(), result)
    stable = sum(unit.tokens for unit in result.prefix[:max(result.breakpoints, default=0)])
    last = last_turn_usage(events)
    return {
        "cache": {"state": view.state, "expected_cached_tokens": view.cached,
                  "fresh_tokens": view.fresh, "unchanged_tokens": view.unchanged,
                  "changed_at": view.changed_at, "stable_prefix_tokens": stable},
        "last_turn": None if last is None else {
            "turn": last.turn, "requests": last.requests,
            "usage": {**last.usage.model_dump(exclude={"kind"}),
                      "fresh_input_tokens": last.usage.fresh_input_tokens},
            "cost_usd": last.cost.usd if last.cost is not None else None,
            "cost": format_cost(last.cost) if last.cost is not None else "not recorded"},
    }


def show_context(options: LaunchOptions, *, as_json: bool) -> int:
    root, settings = settings_for(options)
    model = resolve_model(options.model, os.environ, settings.model)
    workspace = open_workspace(root, settings, TOOL_SCHEMAS, model=model,
                               resume=options.resume, continue_last=options.continue_last,
                               secrets=secret_files(root))
    workspace.notices.extend(workspace_notices(root))
    engine = workspace.engine
    servers = asyncio.run(mcp_statuses(root, settings, engine))  # their tools are items too
    restore_figures(engine, workspace.store.events)  # the calibration, the cache
    budget = engine.budget()
    report = context_report(engine, budget)
    report["mcp"] = [{key: value for key, value in server_report(status).items()
                      if key != "tool_list"} for status in servers]
    report.update(cache_report(engine, workspace.store.events))
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
    counted = ("≈" if report["calibration"] else "") + f"{report['counted']:,}"
    console.print(f"[b]{shown}[/b]  {counted} of {report['limit']:,} tokens "
                  f"({report['percent']:.1f}%), compaction at {report['threshold']:.0%} "
                  f"({report['threshold_tokens']:,}); tokenizer {report['encoding']}",
                  soft_wrap=True)
    cache = report["cache"]
    line = (f"cache: {cache['expected_cached_tokens']:,} tokens expected from the provider's "
            f"cache, {cache['fresh_tokens']:,} sent fresh ({cache['state']})")
    last = report["last_turn"]
    if last is not None:
        usage = last["usage"]
        line += (f"; last turn {last['turn']}: ↑{usage['input_tokens']:,} "
                 f"({usage['cache_read_tokens']:,} cached) ↓{usage['output_tokens']:,}, "
                 f"{last['cost']}")
    console.print(escape(line), soft_wrap=True)
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
