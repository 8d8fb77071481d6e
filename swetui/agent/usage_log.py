"""Usage as the session log keeps it: one `model_call` record per model call, with its
normalised `usage` (logs written before it was kept have only input, output and measured)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from swetui.providers.usage import Usage, total_usage


@dataclass(frozen=True)
class CallUsage:
    """One model call of a session: the model it went to, its turn and its usage."""

    model: str
    turn: int
    usage: Usage


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_from_record(record: Mapping[str, Any]) -> Usage:
    """The usage stored in a `model_call` record (an old or damaged one: what it has)."""
    stored = record.get("usage")
    if isinstance(stored, Mapping):
        try:
            return Usage.model_validate(stored)
        except ValueError:
            pass
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
                               usage=usage_from_record(event)))
    return calls


def session_usage(events: Iterable[Mapping[str, Any]]) -> Usage:
    """The sum of a session's model calls."""
    return total_usage(call.usage for call in call_usages(events))
