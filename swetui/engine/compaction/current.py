"""The running summary kept current: once the history has been layered (a compaction wrote
a running summary), each turn brings it up to date with where the session stands now — the
latest request, the files touched, the last error and the last answer since the folded
turns — without folding anything. The next compaction starts again from the folded facts."""

from __future__ import annotations

from swetui.engine.compaction.text import (
    RUNNING_SUMMARY_TOKENS,
    fit,
    render_running_summary,
    summary_facts,
)
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer
from swetui.engine.payloads import RunningSummaryPayload, SummaryFacts

CONVERSATION = (ItemKind.USER_MESSAGE, ItemKind.ASSISTANT_MESSAGE, ItemKind.TOOL_CALL)
NOW_TOKENS = 110
"""At most this much of the summary's budget says where the session stands now."""


def running_summary(engine: ContextEngine) -> ContextItem | None:
    """The running summary in effect (sent), if the history has been layered."""
    return next((item for item in engine if isinstance(item.payload, RunningSummaryPayload)
                 and item.layer is Layer.SUMMARY and item.state is not ItemState.DROPPED
                 and item.state is not ItemState.ARCHIVED and not item.payload.undone),
                None)


def _since(engine: ContextEngine, after: int) -> list[tuple[int, list[ContextItem]]]:
    turns: dict[int, list[ContextItem]] = {}
    for item in engine:
        if item.layer is Layer.HISTORY and item.kind in CONVERSATION \
                and item.turn_created > after and item.sent:
            turns.setdefault(item.turn_created, []).append(item)
    return sorted(turns.items())


def render_now(now: SummaryFacts) -> str:
    first, last = now.first_turn, now.last_turn
    span = f"turn {last}" if first == last else f"turns {first}–{last}"
    lines = [f"Now ({span}, in full below):"]
    if now.latest:
        lines.append(f"Latest request: {now.latest}")
    if now.files:
        lines.append("Files since: " + " ".join(list(now.files)[-6:]))
    if now.last_error:
        lines.append(f"Last error since: {now.last_error}")
    if now.next_steps:
        lines.append(f"Last answer: {now.next_steps}")
    return "\n".join(lines)


def current_summary_text(engine: ContextEngine, facts: SummaryFacts) -> str:
    """The running summary of `facts` (the folded turns) and, when turns followed them,
    where the session stands now, within the summary's budget."""
    count = engine.counter.count
    live = _since(engine, facts.last_turn or 0)
    if not live:
        return render_running_summary(facts, count)
    now = fit(render_now(summary_facts(SummaryFacts(), live)), NOW_TOKENS, count)
    folded = fit(render_running_summary(facts, count),
                 RUNNING_SUMMARY_TOKENS - count(now) - 2, count)
    return f"{folded}\n{now}"


def bring_up_to_date(engine: ContextEngine) -> ContextItem | None:
    """After a turn: rewrite the running summary (when there is one, and you have not edited
    it by hand) to say where the session stands now; the item when it changed."""
    summary = running_summary(engine)
    if summary is None or summary.edited or not isinstance(summary.payload,
                                                           RunningSummaryPayload):
        return None
    text = current_summary_text(engine, summary.payload.facts)
    if text == summary.content:
        return None
    return engine.set_content(summary.id, text, reason="running summary brought up to date")
