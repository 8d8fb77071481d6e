"""The model-driven compactor: the structural plan, with its running summary and exchange
summaries written by a (cheaper) summarising model.

The agent injects `summarize(system, text) -> str`, which calls the configured
`compaction_model`. A failed call or a malformed reply falls back to the structural texts and
the plan's notes say so; the folds, the retention index and undo are the same either way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Iterable

from swetui.engine.compaction.build import PlanBuilder
from swetui.engine.compaction.plan import CompactionPlan
from swetui.engine.compaction.structural import StructuralCompactor
from swetui.engine.compaction.text import (
    EXCHANGE_SUMMARY_TOKENS,
    RUNNING_SUMMARY_TOKENS,
    argument_text,
    fit,
)
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind
from swetui.engine.payloads import ExchangePayload

Summarize = Callable[[str, str], Awaitable[str]]

SUMMARY_SYSTEM = """\
You compact the history of a coding session so the work can continue from your summary alone.
Preserve: decisions and their reasons; bug fixes with their file paths; designs; every file
path and function name that matters; the current state; the goals; errors not yet resolved.
Drop: pleasantries, redundant tool output, repetition.
Answer in exactly this format and nothing else:
SUMMARY:
<the running summary, at most 200 words: narrative, objective, achievements, active files and
functions, next steps>
EXCHANGES:
t<turn>: <that exchange in one or two sentences, at most 80 words>
(one line for each exchange given)"""

TOOL_OUTPUT_CHARS = 1_500
_EXCHANGE_LINE = re.compile(r"^\s*\**t(\d+)\**\s*[:\-–]\s*(.+?)\s*$", re.IGNORECASE)


def parse_reply(reply: str) -> tuple[str, dict[int, str]] | None:
    """The running summary and per-turn summaries of a reply, or None if it is malformed."""
    match = re.search(r"SUMMARY:\s*(.*?)(?:^\s*EXCHANGES:|\Z)", reply,
                      re.DOTALL | re.MULTILINE | re.IGNORECASE)
    if not match or not match.group(1).strip():
        return None
    exchanges: dict[int, str] = {}
    tail = reply[match.end(1):]
    for line in tail.splitlines():
        found = _EXCHANGE_LINE.match(line)
        if found:
            exchanges[int(found.group(1))] = found.group(2)
    return match.group(1).strip(), exchanges


class ModelCompactor:
    """Compaction whose summaries come from a model; the structural result is its fallback."""

    name = "model"

    def __init__(self, summarize: Summarize, *, max_input_chars: int = 120_000) -> None:
        self.summarize = summarize
        self.max_input_chars = max_input_chars
        self._structural = StructuralCompactor()

    def plan(self, engine: ContextEngine, *, item_ids: Iterable[str] | None = None,
             instructions: str | None = None, target: int | None = None) -> CompactionPlan:
        """A synchronous preview: the structural plan (the model runs in `plan_async`)."""
        plan = self._structural.plan(engine, item_ids=item_ids, instructions=instructions,
                                     target=target)
        plan.notes.append("preview made structurally; the model writes the summaries on apply")
        return plan

    async def plan_async(self, engine: ContextEngine, *, item_ids: Iterable[str] | None = None,
                         instructions: str | None = None,
                         target: int | None = None) -> CompactionPlan:
        """Plan the folds (the shape chosen structurally, so the model is asked once), then
        ask the model for the summaries (falling back on failure)."""
        started = time.perf_counter()
        shape = self._structural.shape_for(engine, target if item_ids is None else None)
        builder = self._structural.build(engine, item_ids=item_ids, compactor="model",
                                         shape=shape)
        running: str | None = None
        if builder.folds and builder.exchanges:
            running = await self._summaries(builder, instructions)
        plan = builder.finish(instructions=instructions, running_text=running)
        plan.planned_ms = (time.perf_counter() - started) * 1000
        return plan

    apply = StructuralCompactor.apply
    undo = StructuralCompactor.undo

    def prompt(self, builder: PlanBuilder, instructions: str | None) -> str:
        """The text to summarise: the previous summary and each folded exchange, tool outputs
        cut, oldest exchanges reduced to their structural summary past the size cap."""
        parts = []
        for old in builder.snap.running:
            parts.append(f"Previous running summary:\n{old.content}")
        if instructions:
            parts.append(f"The user asks the summary to: {instructions.strip()}")
        summaries = {item.payload.turn: item.content for item in builder.created
                     if isinstance(item.payload, ExchangePayload)
                     and item.payload.form == "summary"}
        blocks = [self._exchange_text(turn, items) for turn, items in builder.exchanges]
        size = sum(map(len, blocks))
        for index, (turn, _items) in enumerate(builder.exchanges):
            if size <= self.max_input_chars:
                break
            short = f"=== t{turn} (cut) ===\n{summaries.get(turn, '')}"
            size -= len(blocks[index]) - len(short)
            blocks[index] = short
        parts.append("Exchanges to fold:\n" + "\n".join(blocks))
        return "\n\n".join(parts)

    @staticmethod
    def _exchange_text(turn: int, items: list[ContextItem]) -> str:
        lines = [f"=== t{turn} ==="]
        for item in items:
            if item.kind is ItemKind.TOOL_CALL:
                output = item.content
                if len(output) > TOOL_OUTPUT_CHARS:
                    output = output[:TOOL_OUTPUT_CHARS] + f"\n[… {len(item.content):,} chars]"
                error = " (failed)" if item.call.is_error else ""
                lines.append(f"tool {item.call.name or 'tool'}({argument_text(item)[:300]}){error}:"
                             f"\n{output}")
            else:
                who = "user" if item.kind is ItemKind.USER_MESSAGE else "assistant"
                lines.append(f"{who}: {item.content}")
        return "\n".join(lines)

    async def _summaries(self, builder: PlanBuilder, instructions: str | None) -> str | None:
        """Ask the model; on success rewrite the exchange summaries and return the running
        summary, else note the fallback and return None."""
        try:
            reply = await self.summarize(SUMMARY_SYSTEM, self.prompt(builder, instructions))
        except Exception as exc:  # any failure of the model call: fall back, say so
            builder.notes.append(f"the summarising model failed ({type(exc).__name__}: {exc}); "
                                 "used the structural summary instead")
            builder.compactor = "structural"
            return None
        parsed = parse_reply(reply or "")
        if parsed is None:
            builder.notes.append("the summarising model's reply had no SUMMARY section; used "
                                 "the structural summary instead")
            builder.compactor = "structural"
            return None
        running, per_turn = parsed
        count = builder.engine.counter.count
        for index, item in enumerate(builder.created):
            payload = item.payload
            if (isinstance(payload, ExchangePayload) and payload.form == "summary"
                    and (turn := payload.turn) in per_turn):
                text = fit(f"t{turn} summary: {per_turn[turn]}", EXCHANGE_SUMMARY_TOKENS, count)
                builder.rewrite(index, text)
        return fit(running, RUNNING_SUMMARY_TOKENS, count)
