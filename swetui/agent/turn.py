"""The turn loop of DESIGN §4: input → retrieval → assemble → threshold check → stream →
tools through approvals → results become items → repeat until the model stops.

Cancellation (the UI's esc) may land at any await: the loop then closes the turn so the
session stays consistent — the partial answer is kept and marked interrupted, and every tool
call the model made gets a result item, so the next request pairs calls and results.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from swetui.agent.cost import NOTHING
from swetui.agent.events import ApprovalDecided
from swetui.agent.pricing import PriceBook
from swetui.agent.sandbox import secret_files
from swetui.agent.shown_by_tools import retire_shown_by_tools
from swetui.agent.tool_results import add_tool_result
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.base import ToolError
from swetui.agent.turn_events import (
    AnswerChunk,
    ModelCallFinished,
    ModelCallStarted,
    ReasoningChunk,
    RetrievalDone,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from swetui.engine.bus import EventBus
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.payloads import AssistantPayload
from swetui.engine.retrieval import retire_task_items, retrieve
from swetui.engine.store import RecordEvent
from swetui.engine.symbols.semantic import MODEL, ModelLoader
from swetui.engine.symbols.symbol_map import SymbolIndex, partial_map_note
from swetui.messages import ToolCall
from swetui.providers.base import Provider
from swetui.providers.events import (
    Done,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallEnd,
)
from swetui.providers.usage import NO_USAGE, Usage, estimated_usage
from swetui.secrets import redact

MAX_STEPS = 25
SYMBOL_MAP_WAIT = 5.0
"""How long the first request waits for the symbol map's first build (then it greps)."""
"""Model calls one turn may make before swetui stops it (a runaway tool loop)."""


@dataclass
class StepOutcome:
    """What one model call produced."""

    text_parts: list[str] = field(default_factory=list)
    reasoning_parts: list[str] = field(default_factory=list)
    calls: list[ToolCallEnd] = field(default_factory=list)
    error: str | None = None
    usage: Usage | None = None
    """What the provider reported; replaced by swetui's estimate when it reported nothing."""
    step: int = 0
    estimate: int = 0
    """swetui's count of the assembled request."""
    started: float = 0.0

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts)

    @property
    def generated(self) -> str:
        """Everything the model produced, as counted for an estimate."""
        return self.reasoning + self.text + "".join(call.raw_arguments for call in self.calls)


def _title(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class TurnLoop:
    """Runs one user turn; `run` is cancellable at any point. It works with the collaborators
    it is given and never calls back into the session that made it."""

    def __init__(self, text: str, *, engine: ContextEngine, bus: EventBus,
                 record: RecordEvent, provider: Provider, model: str, toolbox: Toolbox,
                 root: Path, before_request: Callable[[], Awaitable[object]],
                 prices: PriceBook,
                 symbols: Callable[[float], Awaitable[SymbolIndex | None]] | None = None,
                 semantic: ModelLoader | None = MODEL) -> None:
        self.engine = engine
        self.bus = bus
        self.record = record
        self.provider = provider
        self.model = model
        self.toolbox = toolbox
        self.root = root
        self.before_request = before_request
        """Runs before each model call (the session's automatic compaction); a message it
        returns refuses the call with that error."""
        self.symbols = symbols
        """The session's symbol map, awaited (up to a few seconds) by retrieval."""
        self.semantic = semantic
        """The embedding model retrieval ranks described behaviour with (None: words only)."""
        self.text = text
        self.turn = 0
        self.started = time.monotonic()
        self.answer: list[str] = []
        self.prices = prices
        self.usage = NO_USAGE
        """The sum over the turn's model calls."""
        self.requests = 0
        """Model calls made so far (the done line's `↑` sums their input)."""
        self.cost = NOTHING
        self.open_calls: dict[str, ToolCallEnd] = {}
        self.partial: StepOutcome | None = None
        self.running: str | None = None
        """The call the toolbox is carrying out now (it may already have taken effect)."""
        self.approved: set[str] = set()
        """Calls approved during this turn (by the user, a rule or the mode)."""
        self.call_started: dict[str, float] = {}

    def publish(self, event: BaseModel) -> None:
        self.bus.publish(event)

    async def run(self) -> TurnFinished:
        engine = self.engine
        self.turn = turn = engine.next_turn()
        self.record("turn_started", {"turn": turn, "text": self.text})
        self.publish(TurnStarted(turn=turn, text=self.text))
        engine.add(ContextItem(id=engine.new_id("u"), kind=ItemKind.USER_MESSAGE,
                               layer=Layer.HISTORY, title=_title(self.text), content=self.text,
                               origin=Origin.USER, turn_created=turn, turn_last_used=turn,
                               source=Source(turn_id=f"t{turn}")), reason="you wrote")
        unsubscribe = self.bus.subscribe(self._note_decision, ApprovalDecided)
        try:
            await self._retrieve()
            error = None
            cut_short = False
            for step in range(1, MAX_STEPS + 1):
                outcome = await self._step(step)
                if outcome.error:
                    error = outcome.error
                    cut_short = bool(outcome.text_parts or outcome.reasoning_parts
                                     or outcome.calls)
                    break
                if not outcome.calls:
                    break
                await self._run_tools(outcome.calls)
                retire_shown_by_tools(self.engine, turn)  # what a tool showed, not twice
            else:
                error = f"stopped after {MAX_STEPS} model calls in one turn"
            return self._finish(interrupted=cut_short, error=error)
        except asyncio.CancelledError:
            self._close_interrupted()
            return self._finish(interrupted=True, error=None)
        finally:
            unsubscribe()

    def _note_decision(self, event: BaseModel) -> None:
        if (isinstance(event, ApprovalDecided) and event.decision.approved
                and event.action is not None):
            self.approved.add(event.action.call.id)

    # -- steps -----------------------------------------------------------------------------

    async def _retrieve(self) -> None:
        retire_task_items(self.engine, self.turn)
        index = await self.symbols(SYMBOL_MAP_WAIT) if self.symbols is not None else None
        result = await asyncio.to_thread(retrieve, self.root, self.text, self.engine,
                                         turn=self.turn, exclude=secret_files(self.root),
                                         symbols=index, semantic=self.semantic)
        with self.engine.batch("retrieved for this request"):
            for item in result.items:
                self.engine.add(item, reason="retrieved")
        ids = tuple(item.id for item in result.items)
        summary, notes = result.summary, tuple(result.notes)
        if index is not None and index.partial is not None:
            note = partial_map_note(*index.partial)
            summary, notes = f"{summary} ({note})", (*notes, note)
        self.record("retrieval", {"turn": self.turn, "items": list(ids), "summary": summary})
        self.publish(RetrievalDone(turn=self.turn, item_ids=ids, summary=summary, notes=notes))

    async def _step(self, step: int) -> StepOutcome:
        refusal = await self.before_request()
        if isinstance(refusal, str) and refusal:
            return StepOutcome(error=refusal)
        assembled = self.engine.assemble()
        estimate = assembled.total
        self.publish(ModelCallStarted(turn=self.turn, step=step, model=self.model,
                                      input_tokens=estimate))
        outcome = StepOutcome(step=step, estimate=estimate, started=time.monotonic())
        self.engine.note_sent(assembled, outcome.started)
        self.partial = outcome
        async for event in self.provider.stream(assembled.request):
            if isinstance(event, TextDelta):
                outcome.text_parts.append(event.text)
                self.publish(AnswerChunk(turn=self.turn, text=event.text))
            elif isinstance(event, ReasoningDelta):
                outcome.reasoning_parts.append(event.text)
                self.publish(ReasoningChunk(turn=self.turn, text=event.text))
            elif isinstance(event, ToolCallEnd):
                outcome.calls.append(event)
            elif isinstance(event, Usage):
                outcome.usage = event
                if event.measured and event.input_tokens:
                    self.engine.record_usage(event.input_tokens, estimate)
            elif isinstance(event, StreamError):
                outcome.error = redact(event.message)
            elif isinstance(event, Done):
                pass
        self.partial = None
        self._commit_assistant(outcome, interrupted=bool(outcome.error))
        self._end_step(outcome)
        return outcome

    def _end_step(self, outcome: StepOutcome) -> None:
        """Settle a model call's usage (also one cut short: its input was sent and is paid
        for), add it to the turn's, record and publish it."""
        usage = outcome.usage = self._settled_usage(outcome)
        self.usage = self.usage + usage
        self.requests += 1
        cost = self.prices.cost(self.model, usage)
        self.cost = self.cost + cost
        duration = time.monotonic() - outcome.started
        step = outcome.step
        sent = self.engine.last_sent
        marks = sent.breakpoint_marks() if sent is not None else ()
        self.record("model_call", {"turn": self.turn, "step": step, "model": self.model,
                                      "input_tokens": usage.input_tokens,
                                      "estimated_input": outcome.estimate,
                                      "output_tokens": usage.output_tokens,
                                      "measured": usage.measured,
                                      "usage": usage.model_dump(mode="json"),
                                      "cost": cost.model_dump(mode="json"),
                                      "cache_prefix": [list(mark) for mark in marks],
                                      "duration": round(duration, 3), "error": outcome.error})
        self.publish(ModelCallFinished(turn=self.turn, step=step,
                                       input_tokens=usage.input_tokens,
                                       output_tokens=usage.output_tokens,
                                       measured=usage.measured, usage=usage, cost=cost,
                                       duration=round(duration, 3), error=outcome.error))

    def _settled_usage(self, outcome: StepOutcome) -> Usage:
        """The provider's usage when it measured some; otherwise swetui's estimate (the
        assembled request, and the answer as counted here), marked as such."""
        reported = outcome.usage
        if reported is not None and reported.measured and reported.input_tokens:
            if reported.output_tokens or not outcome.generated:
                return reported
            # Input measured, the stream cut before the output count came.
            counted = self.engine.counter.count(outcome.generated)
            return reported.model_copy(update={"output_tokens": counted})
        return estimated_usage(self._calibrated(outcome.estimate),
                               self._calibrated(self.engine.counter.count(outcome.generated)))

    def _calibrated(self, estimate: int) -> int:
        """swetui's count corrected by the model's calibration ratio (its tokenizer's
        tokens per estimated one), as the gauge shows it; the raw count when uncalibrated."""
        ratio = self.engine.calibration()
        return round(estimate * ratio) if ratio else estimate

    def _commit_assistant(self, outcome: StepOutcome, *, interrupted: bool) -> None:
        """The assistant's message becomes an item (also when cut short)."""
        if outcome.text:
            self.answer.append(outcome.text)
        if not (outcome.text or outcome.calls or outcome.reasoning):
            return
        content = outcome.text + ("\n\n[interrupted]" if interrupted and outcome.text else "")
        calls = list(outcome.calls)
        for call in calls:
            self.open_calls[call.id] = call
        names = ", ".join(call.name for call in calls)
        title = (_title(outcome.text) if outcome.text
                 else f"calls {names}" if names else "(thinking)")
        self.engine.add(ContextItem(
            id=self.engine.new_id("a"), kind=ItemKind.ASSISTANT_MESSAGE, layer=Layer.HISTORY,
            title=title, content=content, origin=Origin.AGENT, turn_created=self.turn,
            turn_last_used=self.turn, source=Source(turn_id=f"t{self.turn}"),
            payload=AssistantPayload(tool_call_ids=tuple(call.id for call in calls),
                                     reasoning=outcome.reasoning, interrupted=interrupted)),
            reason="the agent answered")
        self.record("assistant", {
            "turn": self.turn, "text": outcome.text, "reasoning": outcome.reasoning,
            "interrupted": interrupted,
            "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]})

    async def _run_tools(self, calls: list[ToolCallEnd]) -> None:
        for call in calls:
            arguments = call.arguments if call.arguments is not None else {}
            self.call_started[call.id] = time.monotonic()
            self.publish(ToolCallStarted(turn=self.turn, call_id=call.id, name=call.name,
                                         arguments=arguments))
            if call.arguments is None:
                result = ToolError(
                    f"the arguments of your {call.name} call were not valid JSON "
                    f"({call.error or 'could not be decoded'}); send the call again with a "
                    "valid JSON object", summary=f"malformed arguments for {call.name}").result()
            else:
                self.running = call.id
                result = await self.toolbox.run(
                    ToolCall(id=call.id, name=call.name, arguments=call.arguments))
                self.running = None
            self._commit_tool(call, arguments, result.content, result.summary, result.is_error,
                              result.path)

    def _commit_tool(self, call: ToolCallEnd, arguments: dict[str, Any], content: str,
                     summary: str, is_error: bool, path: str | None) -> None:
        self.open_calls.pop(call.id, None)
        shown = _title(json.dumps(arguments, ensure_ascii=False), 48)
        add_tool_result(self.engine, self.record, call_id=call.id, name=call.name,
                        arguments=arguments, content=content, summary=summary,
                        is_error=is_error, path=path, turn=self.turn,
                        title=f"{call.name} {shown}",
                        reason=f"{call.name} finished")
        started = self.call_started.pop(call.id, None)
        duration = round(time.monotonic() - started, 3) if started is not None else 0.0
        self.publish(ToolCallFinished(turn=self.turn, call_id=call.id, name=call.name,
                                      summary=summary, content=content, is_error=is_error,
                                      path=path, duration=duration))

    def _close_interrupted(self) -> None:
        """Keep what the model said and give every open call a result."""
        if self.partial is not None:
            partial, self.partial = self.partial, None
            self._commit_assistant(partial, interrupted=True)
            self._end_step(partial)
        for call in list(self.open_calls.values()):
            if call.id == self.running and call.id in self.approved:
                # Approved and under way when esc landed: it may have changed things.
                content = ("Interrupted by the user while it was running: it may have "
                           "partly run or taken effect. Check the workspace before running "
                           "it again.")
                summary = "interrupted while running"
            else:
                content, summary = "Cancelled by the user before it ran.", "cancelled"
            self._commit_tool(call, call.arguments or {}, content, summary, True, None)

    def _finish(self, *, interrupted: bool, error: str | None) -> TurnFinished:
        duration = time.monotonic() - self.started
        finished = TurnFinished(turn=self.turn, duration=round(duration, 3),
                                input_tokens=self.usage.input_tokens,
                                output_tokens=self.usage.output_tokens, usage=self.usage,
                                cost=self.cost, requests=self.requests,
                                interrupted=interrupted, error=error,
                                answer="\n\n".join(self.answer))
        self.record("turn_finished", finished.model_dump(mode="json"))
        self.publish(finished)
        return finished
