"""The structural compactor: offline, deterministic and fast.

It collapses finished exchanges older than the last five into a header and a summary (sent
for exchanges 6–10 back, archived beyond), replaces their tool outputs by one-line results
with a recall id, drops file contents retrieved more than ten turns ago unless pinned or still
being edited, and folds duplicate tool outputs. Pinned items and the current turn are never
touched; nothing is deleted.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from swetui.engine.compaction.apply import apply as apply_plan
from swetui.engine.compaction.apply import undo as undo_compaction
from swetui.engine.compaction.build import LIVE, PlanBuilder, Snapshot
from swetui.engine.compaction.plan import CompactionPlan
from swetui.engine.compaction.text import call_target, file_stub
from swetui.engine.context import ContextEngine
from swetui.engine.events import CompactionFinished, CompactionUndone
from swetui.engine.gc_pause import gc_paused
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer
from swetui.engine.payloads import ExchangePayload

KEEP_FULL = 5
"""The last exchanges sent in full."""
KEEP_SUMMARIES = 10
"""Exchanges up to this far back keep their summary in the request; older ones a header."""
FILE_AGE = 10
"""Retrieved file contents older than this many turns leave the request."""
MAX_HEADERS = 200
"""Headers sent at most; older exchanges are reached through the index and `recall`."""
DEDUP_MIN_CHARS = 200
"""Tool outputs shorter than this are not worth a 'same as' reference."""
EDIT_TOOLS = frozenset({"edit_file", "write_file"})
TASK_KINDS = frozenset({ItemKind.FILE, ItemKind.GREP, ItemKind.LISTING})


@dataclass(frozen=True, slots=True)
class Shape:
    """How much of the recent history a compaction leaves alone."""

    keep_full: int = KEEP_FULL
    keep_summaries: int = KEEP_SUMMARIES
    file_age: int = FILE_AGE


SHAPES = (Shape(), Shape(3, 6, 5), Shape(2, 4, 2), Shape(1, 2, 1), Shape(1, 0, 1))
"""Ever tighter shapes, tried in turn when a compaction must get under a target."""


class StructuralCompactor:
    """Offline compaction by structure: no model call, the same items give the same plan."""

    name = "structural"

    def plan(self, engine: ContextEngine, *, item_ids: Iterable[str] | None = None,
             instructions: str | None = None, target: int | None = None) -> CompactionPlan:
        """What compacting now would do (nothing changes until `apply`). With a `target`
        (tokens), ever tighter shapes are tried until the request gets under it."""
        started = time.perf_counter()
        with gc_paused():
            plan = self.build(engine, item_ids=item_ids,
                              shape=self.shape_for(engine, target)
                              if item_ids is None else Shape()).finish(
                instructions=instructions)
        plan.planned_ms = (time.perf_counter() - started) * 1000
        return plan

    async def plan_async(self, engine: ContextEngine, *, item_ids: Iterable[str] | None = None,
                         instructions: str | None = None,
                         target: int | None = None) -> CompactionPlan:
        return self.plan(engine, item_ids=item_ids, instructions=instructions, target=target)

    def shape_for(self, engine: ContextEngine, target: int | None) -> Shape:
        """The loosest shape whose plan brings the request to `target` tokens or below (the
        tightest when none does); the default shape without a target."""
        if target is None:
            return SHAPES[0]
        for shape in SHAPES[:-1]:
            with gc_paused():
                if self.build(engine, shape=shape).finish().tokens_after <= target:
                    return shape
        return SHAPES[-1]

    def apply(self, engine: ContextEngine, plan: CompactionPlan,
              trigger: str = "manual") -> CompactionFinished:
        return apply_plan(engine, plan, trigger)

    def undo(self, engine: ContextEngine, compaction_id: str | None = None) -> CompactionUndone:
        return undo_compaction(engine, compaction_id)

    # -- planning ------------------------------------------------------------------------

    def build(self, engine: ContextEngine, *, item_ids: Iterable[str] | None = None,
              compactor: str = "structural", shape: Shape = SHAPES[0]) -> PlanBuilder:
        """The folds and exchange digests, before the running summary and the index."""
        snap = Snapshot.of(engine)
        builder = PlanBuilder(engine, snap, engine.new_id("k"), compactor)
        exchanges = snap.exchanges()
        # an assistant message stays while it carries a pinned tool call: the call's result
        # can only be sent paired with it
        anchors = {item.source.tool_call_id for item in snap.calls if item.pinned}
        builder.anchors = anchors
        position = {turn: len(exchanges) - i for i, turn in enumerate(exchanges)}
        if item_ids is not None:
            self._selection(builder, list(item_ids), position)
            return builder
        for turn in exchanges:
            back = position[turn]
            if turn >= snap.current or back <= shape.keep_full:
                continue
            live = [item for item in snap.conversation.get(turn, ())
                    if item.state in LIVE and not item.pinned and not builder.anchored(item)]
            if live:
                builder.collapse(turn, live, back, shape.keep_summaries)
            elif back > shape.keep_summaries and turn in snap.summaries:
                builder.fold(snap.summaries[turn])  # demoted: only its header stays sent
                for item in snap.conversation.get(turn, ()):
                    builder.archive_stub(item)
        self._cap_headers(builder)
        self._duplicates(builder)
        self._old_files(builder, shape)
        if not builder.folds:
            builder.notes.append("nothing to fold: the last exchanges, the current turn and "
                                 "pinned items are kept in full")
        return builder

    def _selection(self, builder: PlanBuilder, item_ids: list[str],
                   position: dict[int, int]) -> None:
        engine = builder.engine
        by_turn: dict[int, list[ContextItem]] = {}
        for item_id in item_ids:
            if item_id not in engine:
                builder.notes.append(f"{item_id}: no such item")
                continue
            item = engine.get(item_id)
            if item.pinned:
                builder.notes.append(f"{item_id}: pinned, left as it is")
            elif item.state not in LIVE:
                builder.notes.append(f"{item_id}: already {item.state.value}")
            elif builder.anchored(item):
                builder.notes.append(f"{item_id}: carries a pinned tool call, left as it is")
            elif item.layer is Layer.HISTORY and item.kind in _CONVERSATION:
                by_turn.setdefault(item.turn_created, []).append(item)
            else:
                builder.fold(item, file_stub(item, item.turn_created)
                             if item.kind in TASK_KINDS else None)
        for turn, live in sorted(by_turn.items()):
            builder.collapse(turn, live, min(position.get(turn, 1), KEEP_SUMMARIES),
                             KEEP_SUMMARIES)

    def _cap_headers(self, builder: PlanBuilder) -> None:
        """At most MAX_HEADERS headers stay sent; older ones go to the archive (their paths
        and identifiers move to the reference index)."""
        created = {item.id: position for position, item in enumerate(builder.created)}
        sent = [(item.payload.turn, index, item) for index, item in
                enumerate([*builder.snap.headers.values(), *builder.created])
                if isinstance(item.payload, ExchangePayload) and item.payload.form == "header"
                and item.id not in builder.folds]
        sent.sort(key=lambda entry: (entry[0], entry[1]))
        # by id, never by model equality: comparing pydantic models field by field made
        # this quadratic in the session's length
        for _turn, _index, item in sent[:max(0, len(sent) - MAX_HEADERS)]:
            position = created.get(item.id)
            if position is not None:
                builder.created[position] = item.with_fields({"state": ItemState.COMPACTED})
            else:
                builder.fold(item)

    def _duplicates(self, builder: PlanBuilder) -> None:
        """Identical tool outputs: the latest stays, earlier ones point at it."""
        keepers: dict[str, ContextItem] = {}
        folds = builder.folds
        calls = [item for item in builder.snap.calls
                 if item.state in LIVE and item.id not in folds
                 and len(item.content) >= DEDUP_MIN_CHARS]
        for item in reversed(calls):
            keeper = keepers.get(item.content_hash)
            if keeper is None:
                keepers[item.content_hash] = item
            elif item.turn_created < builder.snap.current and not item.pinned:
                name = item.call.name or "tool"
                builder.fold(item, f"[folded] {name}({call_target(item)}) → same output as "
                                   f"{keeper.id} (recall {item.id})")

    def _old_files(self, builder: PlanBuilder, shape: Shape) -> None:
        """File contents retrieved more than `file_age` turns ago, unless still edited."""
        snap = builder.snap
        editing = {item.source.path or call_target(item)
                   for turn, items in snap.conversation.items()
                   if turn > snap.current - shape.keep_full for item in items
                   if item.kind is ItemKind.TOOL_CALL and item.call.name in EDIT_TOOLS}
        for item in snap.task:
            last = max(item.turn_created, item.turn_last_used)
            if (item.kind in TASK_KINDS and item.state in LIVE
                    and last < snap.current - shape.file_age and item.source.path not in editing):
                builder.fold(item, file_stub(item, item.turn_created))


_CONVERSATION = frozenset({ItemKind.USER_MESSAGE, ItemKind.ASSISTANT_MESSAGE, ItemKind.TOOL_CALL})
