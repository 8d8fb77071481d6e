"""Usage as the session log keeps it: one `model_call` record per model call, with its
normalised `usage` (logs written before it was kept have only input, output and measured)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel

from swetui.agent.calibrations import CalibrationStore
from swetui.agent.cost import Cost, sum_costs
from swetui.engine.context import ContextEngine
from swetui.providers.usage import Usage, total_usage

Stored = TypeVar("Stored", bound=BaseModel)


@dataclass(frozen=True)
class CallUsage:
    """One model call of a session: the model it went to, its turn and its usage."""

    model: str
    turn: int
    usage: Usage
    cost: Cost | None
    """As priced when the call was made; None in logs written before costs were kept."""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_from_record(record: Mapping[str, Any]) -> Usage:
    """The usage stored in a `model_call` record (an old or damaged one: what it has)."""
    stored = _stored(record, "usage", Usage)
    if stored is not None:
        return stored
    return Usage(input_tokens=_count(record.get("input_tokens")),
                 output_tokens=_count(record.get("output_tokens")),
                 measured=bool(record.get("measured")))


def call_usages(events: Iterable[Mapping[str, Any]]) -> list[CallUsage]:
    """Every model call of a session log, in order."""
    calls: list[CallUsage] = []
    for event in events:
        if event.get("type") != "model_call":
            continue
        model = event.get("model")
        turn = event.get("turn")
        calls.append(CallUsage(model=model if isinstance(model, str) else "",
                               turn=turn if isinstance(turn, int) else 0,
                               usage=usage_from_record(event), cost=_cost(event)))
    return calls


def _cost(record: Mapping[str, Any]) -> Cost | None:
    return _stored(record, "cost", Cost)


def _stored(record: Mapping[str, Any], key: str, model: type[Stored]) -> Stored | None:
    """`record[key]` read back as `model`; None when it is missing or damaged."""
    stored = record.get(key)
    if isinstance(stored, Mapping):
        try:
            return model.model_validate(stored)
        except ValueError:
            pass
    return None


def session_cost(events: Iterable[Mapping[str, Any]],
                 price: Callable[[str, Usage], Cost]) -> Cost:
    """What a session's model calls cost: as recorded, or priced now by `price` for calls
    logged before costs were kept."""
    return sum_costs(call.cost if call.cost is not None else price(call.model, call.usage)
                     for call in call_usages(events))


def session_usage(events: Iterable[Mapping[str, Any]]) -> Usage:
    """The sum of a session's model calls."""
    return total_usage(call.usage for call in call_usages(events))


def restore_cache_prefix(engine: ContextEngine, events: Sequence[Mapping[str, Any]], *,
                         wall: float, monotonic: float) -> None:
    """Tell the engine what the log's last model call left in the provider's cache, so a
    resumed session (or `swetui context`) knows what its next request will read back."""
    for event in reversed(events):
        if event.get("type") != "model_call":
            continue
        marks = event.get("cache_prefix")
        sent = event.get("ts")
        model = event.get("model")
        if not (isinstance(marks, list) and isinstance(sent, int | float)
                and isinstance(model, str)):
            return
        try:
            parsed = [(int(end), int(tokens), str(digest)) for end, tokens, digest in marks]
        except (TypeError, ValueError):
            return
        engine.restore_sent(parsed, model, monotonic - max(0.0, wall - float(sent)))
        return


def restore_from_log(engine: ContextEngine, events: Sequence[Mapping[str, Any]]) -> None:
    """What a resumed session takes from its log's model calls: the engine's model's last
    measured usage (its calibration) and what the provider still holds in its cache."""
    for event in reversed(events):
        if (event.get("type") == "model_call" and event.get("measured")
                and event.get("model") == engine.model):
            engine.record_usage(int(event.get("input_tokens", 0)),
                                int(event.get("estimated_input", 0)))
            break
    restore_cache_prefix(engine, events, wall=time.time(), monotonic=time.monotonic())


class LastTurnUsage(NamedTuple):
    """The last turn that called a model: its number, its usage summed over its requests,
    its cost (None when a call was logged before costs were kept) and how many requests."""

    turn: int
    usage: Usage
    cost: Cost | None
    requests: int


def last_turn_usage(events: Iterable[Mapping[str, Any]]) -> LastTurnUsage | None:
    """The last turn that called a model, from the log; None when none did."""
    calls = call_usages(events)
    if not calls:
        return None
    turn = calls[-1].turn
    mine = [call for call in calls if call.turn == turn]
    costs = [call.cost for call in mine]
    cost = sum_costs(c for c in costs if c is not None) if all(costs) else None
    return LastTurnUsage(turn, total_usage(call.usage for call in mine), cost, len(mine))


def restore_figures(engine: ContextEngine, events: Sequence[Mapping[str, Any]]) -> None:
    """Everything a session's figures start from, as `AgentSession.open` restores it: the
    log's last measured request (the calibration), the provider's cache, and else the
    calibration an earlier session remembered for the model (`swetui context` uses this,
    so it shows what the screen would)."""
    restore_from_log(engine, events)
    if engine.calibration() is None and (known := CalibrationStore().get(engine.model)):
        engine.calibrate(known.ratio, known.source)
