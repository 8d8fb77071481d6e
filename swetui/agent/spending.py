"""The session's spending cap (issue 11, item 7): before each model call, what the session
has cost so far plus what this call is expected to cost is held against `spending_cap`. A
call that would pass it waits for the user's yes (the screen asks once per turn), or is not
sent (`swetui run`, which cannot ask): the turn ends with a message saying so, and the
question and everything before it stay in the session.

What a call is expected to cost: its prompt as the provider will bill it (the part expected
from the cache at the cache-read price, the part written to it at the write price, the rest
fresh), plus an answer as long as the session's answers have been on average (1,000 tokens
before the first), priced like the turn's real calls (genai-prices, the config's prices, $0
for local models).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from swetui.agent.cost import Cost, format_cost, format_usd
from swetui.agent.usage_log import call_usages, session_cost
from swetui.engine.change_price import next_request
from swetui.engine.context import ContextEngine
from swetui.providers.usage import Usage, total_usage

Price = Callable[[str, Usage], Cost]

FIRST_ANSWER_TOKENS = 1_000
"""The answer a call is expected to write before the session has measured any."""


@dataclass(frozen=True)
class SpendCheck:
    """A model call that would take the session past its cap."""

    cap: float
    spent: Cost
    """The session's calls so far."""
    call: Cost
    """What the next call is expected to cost."""

    def message(self) -> str:
        return (f"the next model call (about {format_cost(self.call)}) would take this "
                f"session past its spending cap of {format_usd(self.cap)}: "
                f"{format_cost(self.spent)} spent so far")


SpendingPrompt = Callable[[SpendCheck], Awaitable[bool]]
"""Asks the user whether to send anyway (True: send)."""


def expected_call(engine: ContextEngine, *, now: float, output_tokens: int,
                  cost: Price) -> Cost:
    """What the next model call is expected to cost."""
    request, _ = next_request(engine, engine.assemble(), now=now)
    return cost(engine.model, Usage(input_tokens=request.total,
                                    cache_read_tokens=request.cached,
                                    cache_write_tokens=request.written,
                                    output_tokens=output_tokens, measured=False))


class SpendingCap:
    """Holds the session's calls to `cap` US dollars (None: no cap)."""

    def __init__(self, cap: float | None) -> None:
        self.cap = cap
        self.ask: SpendingPrompt | None = None
        """Set by a front end that can ask the user; without it a call past the cap is not
        sent."""
        self.allowed_turn: int | None = None
        """The turn the user allowed past the cap (asked once per turn)."""
        self.stopped: SpendCheck | None = None
        """The check that stopped the last call, if one did."""
        self.unpriced_said = False

    async def check(self, engine: ContextEngine, events: Sequence[Mapping[str, Any]],
                    cost: Price, say: Callable[[str], None]) -> str | None:
        """Before a model call: None when it may go, else why it is not sent. `events`: the
        session log (the calls so far, resumed ones included); `cost` prices a call."""
        self.stopped = None
        cap = self.cap
        if cap is None or engine.turn == self.allowed_turn:
            return None
        calls = call_usages(events)
        answers = total_usage(call.usage for call in calls).output_tokens
        spent = session_cost(events, cost)
        call = expected_call(engine, now=time.monotonic(), cost=cost,
                             output_tokens=answers // len(calls) if calls
                             else FIRST_ANSWER_TOKENS)
        if spent.usd is None or call.usd is None:
            if not self.unpriced_said:
                self.unpriced_said = True
                say(f"spending cap {format_usd(cap)}: {engine.model}'s price is unknown, so "
                    "what it costs cannot be held to the cap (set one in [prices])")
            return None
        if spent.usd + call.usd <= cap:
            return None
        check = SpendCheck(cap=cap, spent=spent, call=call)
        if self.ask is not None and await self.ask(check):
            self.allowed_turn = engine.turn
            return None
        self.stopped = check
        return (f"Not sent: {check.message()}. Raise spending_cap in config.toml to go on; "
                "your message is kept.")
