"""Rebuild a session's transcript (turn events) from its log, for `--resume`."""

from __future__ import annotations

from typing import Any

from swetui.agent.turn_events import (
    AnswerChunk,
    CommandShown,
    ReasoningChunk,
    ToolCallFinished,
    ToolCallStarted,
    TurnEvent,
    TurnFinished,
    TurnStarted,
)


def rebuild_transcript(events: list[dict[str, Any]]) -> list[TurnEvent]:
    """Turn events in order, as a live session would have published them (chunks whole)."""
    out: list[TurnEvent] = []
    for event in events:
        kind = event.get("type")
        turn = int(event.get("turn", 0) or 0)
        try:
            if kind == "turn_started":
                out.append(TurnStarted(turn=turn, text=str(event.get("text", ""))))
            elif kind == "assistant":
                if event.get("reasoning"):
                    out.append(ReasoningChunk(turn=turn, text=event["reasoning"]))
                if event.get("text"):
                    out.append(AnswerChunk(turn=turn, text=event["text"]))
                for call in event.get("calls") or []:
                    out.append(ToolCallStarted(turn=turn, call_id=call["id"], name=call["name"],
                                               arguments=call.get("arguments") or {}))
            elif kind == "tool_result":
                out.append(ToolCallFinished(turn=turn, call_id=event["call_id"],
                                            name=event["name"], summary=event.get("summary", ""),
                                            content=event.get("content", ""),
                                            is_error=bool(event.get("is_error")),
                                            path=event.get("path")))
            elif kind == "turn_finished":
                out.append(TurnFinished.model_validate(event))
            elif kind == "command_shown":
                out.append(CommandShown(turn=turn, command=str(event["command"]),
                                        output=str(event.get("output", ""))))
        except (KeyError, TypeError, ValueError):
            continue  # one damaged record must not lose the rest of the transcript
    return out
