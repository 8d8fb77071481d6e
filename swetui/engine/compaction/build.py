"""Building a compaction plan: fold items, create the exchange trio (header, summary, full
text in the archive), then the running summary and the reference index that keep every path
and identifier of what was folded."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from swetui.engine.assembly import CONVERSATION_KINDS
from swetui.engine.compaction.plan import CompactionPlan, Fold, price_fold, settle_tokens
from swetui.engine.compaction.text import (
    ERRORS_GROUP,
    exchange_header,
    exchange_summary,
    identifiers,
    item_errors,
    item_identifiers,
    message_stub,
    render_index,
    render_running_summary,
    summary_facts,
    tool_stub,
)
from swetui.engine.context import ContextEngine, Priced
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin, Source
from swetui.engine.payloads import (
    CompactionOutput,
    CompactionPayload,
    ExchangePayload,
    ReferenceIndexPayload,
    RunningSummaryPayload,
    SummaryFacts,
)

LIVE = (ItemState.INCLUDED, ItemState.STALE)
_CARRIED = (RunningSummaryPayload, ReferenceIndexPayload)


@dataclass
class Snapshot:
    """The engine's items as compaction sees them: conversation by turn, and the items an
    earlier compaction created that are still sent."""

    items: list[ContextItem]
    current: int
    conversation: dict[int, list[ContextItem]] = field(default_factory=dict)
    headers: dict[int, ContextItem] = field(default_factory=dict)
    summaries: dict[int, ContextItem] = field(default_factory=dict)
    running: list[ContextItem] = field(default_factory=list)
    index: list[ContextItem] = field(default_factory=list)
    calls: list[ContextItem] = field(default_factory=list)
    """Every tool call, in order."""
    task: list[ContextItem] = field(default_factory=list)
    """Every item of the task layer (retrieved files, grep hits, listings), in order."""

    @classmethod
    def of(cls, engine: ContextEngine) -> Snapshot:
        """One pass over the engine's items sorts out all a compaction looks at."""
        snap = cls(items=list(engine), current=engine.turn)
        for item in snap.items:
            if item.kind is ItemKind.TOOL_CALL:
                snap.calls.append(item)
            if item.layer is Layer.HISTORY and item.kind in CONVERSATION_KINDS:
                snap.conversation.setdefault(item.turn_created, []).append(item)
            elif item.layer is Layer.TASK:
                snap.task.append(item)
            elif item.state in LIVE:
                match item.payload:
                    case ExchangePayload(form="header", turn=turn):
                        snap.headers[turn] = item
                    case ExchangePayload(form="summary", turn=turn):
                        snap.summaries[turn] = item
                    case RunningSummaryPayload():
                        snap.running.append(item)
                    case ReferenceIndexPayload():
                        snap.index.append(item)
        return snap

    def exchanges(self) -> list[int]:
        """Every exchange (turn) of the session, live or already folded, oldest first."""
        return sorted(set(self.conversation) | set(self.headers))


class PlanBuilder:
    """Collects folds and created items for one compaction, then settles its tokens."""

    def __init__(self, engine: ContextEngine, snapshot: Snapshot, compaction_id: str,
                 compactor: str = "structural") -> None:
        self.engine = engine
        self.snap = snapshot
        self.id = compaction_id
        self.compactor = compactor
        self.folds: dict[str, Fold] = {}
        self.priced: dict[str, Priced] = {}
        self.folded_items: list[ContextItem] = []
        self.created: list[ContextItem] = []
        self.exchanges: list[tuple[int, list[ContextItem]]] = []
        self.notes: list[str] = []
        self.retained: set[str] = set()
        self.anchors: set[str | None] = set()

    def anchored(self, item: ContextItem) -> bool:
        """An assistant message that carries a pinned tool call (so it must stay sent)."""
        return item.kind is ItemKind.ASSISTANT_MESSAGE and bool(
            self.anchors.intersection(item.call_ids))

    def fold(self, item: ContextItem, stub: str | None = None,
             state: ItemState = ItemState.COMPACTED) -> None:
        if item.id in self.folds or item.pinned or item.state not in LIVE:
            return
        self.folds[item.id], self.priced[item.id] = price_fold(self.engine, item, stub, self.id,
                                                               state)
        self.folded_items.append(item)

    def fold_message(self, item: ContextItem, archive: bool = False) -> None:
        """Fold a message; a tool call's stub stays sent unless `archive` (its exchange is
        down to its header, which with the index keeps what the stub said)."""
        if item.kind is ItemKind.TOOL_CALL:
            self.fold(item, tool_stub(item),
                      ItemState.ARCHIVED if archive else ItemState.COMPACTED)
        else:
            self.fold(item, message_stub(item))

    def archive_stub(self, item: ContextItem) -> None:
        """A tool call folded earlier whose exchange is now down to its header: its stub
        leaves the request too (undo gives it back)."""
        if (item.id in self.folds or item.pinned or item.kind is not ItemKind.TOOL_CALL
                or item.state is not ItemState.COMPACTED):
            return
        self.folds[item.id], self.priced[item.id] = price_fold(
            self.engine, item, item.stub, self.id, ItemState.ARCHIVED)

    def new(self, kind: ItemKind, layer: Layer, title: str, content: str,
             payload: CompactionPayload, *, state: ItemState = ItemState.INCLUDED,
             item_id: str | None = None) -> ContextItem:
        turn = payload.turn
        item = self.engine.prepare(ContextItem(
            id=item_id or self.engine.new_id("d"), kind=kind, layer=layer, title=title,
            content=content, state=state, origin=Origin.AUTO, turn_created=turn,
            turn_last_used=self.snap.current, source=Source(turn_id=f"t{turn}"),
            payload=payload))
        self.created.append(item)
        return item

    def rewrite(self, index: int, content: str) -> None:
        """Give created item `index` new text (a model's summary), hashed and counted."""
        self.created[index] = self.engine.prepare(
            self.created[index].with_fields({"content": content}))

    def collapse(self, turn: int, live: list[ContextItem], position: int,
                 keep_summaries: int) -> None:
        """Fold `live` items of exchange `turn` into a header (always sent) and a summary
        (sent while the exchange is within the last `keep_summaries`)."""
        covered = [item.id for item in live]
        for old in (self.snap.headers.get(turn), self.snap.summaries.get(turn)):
            if old is not None:
                if isinstance(old.payload, ExchangePayload):
                    covered = [*old.payload.items, *covered]
                self.fold(old)
        for item in live:
            self.fold_message(item, archive=position > keep_summaries)
        if position > keep_summaries:
            for item in self.snap.conversation.get(turn, ()):
                self.archive_stub(item)
        everything = self.snap.conversation.get(turn, live)
        count = self.engine.counter.count
        user = next((i.content for i in everything if i.kind is ItemKind.USER_MESSAGE), "")
        header_id = self.engine.new_id("d")
        header = exchange_header(turn, user, count)
        summary_state = ItemState.INCLUDED if position <= keep_summaries else ItemState.COMPACTED
        items = tuple(dict.fromkeys(covered))
        summary = self.new(ItemKind.EXCHANGE_DIGEST, Layer.HISTORY, f"Turn {turn} summary",
                            exchange_summary(turn, everything, count),
                            ExchangePayload(compaction_id=self.id, turn=turn, form="summary",
                                            items=items, counterpart=header_id),
                            state=summary_state)
        self.new(ItemKind.EXCHANGE_DIGEST, Layer.HISTORY,
                  f"Turn {turn}: {header.split(': ', 1)[-1]}", header,
                  ExchangePayload(compaction_id=self.id, turn=turn, form="header", items=items,
                                  counterpart=summary.id), item_id=header_id)
        # the header goes before its summary
        self.created[-2:] = self.created[-1:-3:-1]
        self.exchanges.append((turn, live))

    def finish(self, *, instructions: str | None = None,
               running_text: str | None = None) -> CompactionPlan:
        """Add the running summary and the reference index, and settle the tokens."""
        plan = CompactionPlan(compaction_id=self.id, compactor=self.compactor,
                              instructions=instructions, notes=self.notes)
        if not self.folds:
            settle_tokens(self.engine, plan)
            return plan
        if self.exchanges or self.snap.running:
            self._running_summary(instructions, running_text)
        self._index()
        plan.folds = list(self.folds.values())
        plan.created = self.created
        plan.retained = sorted(self.retained)
        plan._priced = self.priced
        settle_tokens(self.engine, plan)
        return plan

    def _running_summary(self, instructions: str | None, text: str | None) -> None:
        previous = SummaryFacts()
        for old in self.snap.running:
            if isinstance(old.payload, RunningSummaryPayload):
                previous = old.payload.facts
            self.fold(old)
        facts = summary_facts(previous, self.exchanges)
        if instructions:
            facts = facts.model_copy(update={"focus": instructions.strip()[:200]})
        count = self.engine.counter.count
        body = text if text is not None else render_running_summary(facts, count)
        self.new(ItemKind.SUMMARY, Layer.SUMMARY, "Running summary", body,
                  RunningSummaryPayload(compaction_id=self.id, turn=self.snap.current,
                                        facts=facts))

    def _index(self) -> None:
        """Every name and error line of the folded items that no sent header or summary
        shows, filed under the turn (and file) it came from. The running summary does not
        count as showing a name: it is rewritten at every compaction."""
        for old in self.snap.index:
            self.fold(old)
        sent = [item for item in self.created if item.state is ItemState.INCLUDED
                and not isinstance(item.payload, RunningSummaryPayload)]
        present: set[str] = set()
        for item in sent:
            present |= identifiers(item.content)
        groups: dict[str, list[str]] = {}
        placed: set[str] = set()
        for old in self.snap.index:
            if isinstance(old.payload, ReferenceIndexPayload):
                for where, carried in old.payload.groups.items():
                    self._place(groups, placed, present, where, carried)
        retained = self.retained
        for item in self.folded_items:
            payload = item.payload
            if isinstance(payload, _CARRIED):
                continue  # the index's groups were carried over above; the summary's names
                # came from conversation items filed under their own turns
            names = item_identifiers(item)
            retained |= names
            turn = payload.turn if isinstance(payload, CompactionOutput) else item.turn_created
            new = names - placed - present  # set work in C: a long session has many names
            if new:
                placed |= new
                path = item.source.path
                where = f"t{turn} {path}" if path else f"t{turn}"
                groups.setdefault(where, []).extend(sorted(new))
            errors = item_errors(item)
            if errors:
                retained.update(errors)
                self._place(groups, placed, set(), f"t{turn}{ERRORS_GROUP}", errors)
        if groups:
            self.new(ItemKind.EXCHANGE_DIGEST, Layer.HISTORY, "Reference index",
                      render_index(groups),
                      ReferenceIndexPayload(compaction_id=self.id, turn=self.snap.current,
                                            groups=groups))

    @staticmethod
    def _place(groups: dict[str, list[str]], placed: set[str], present: set[str], where: str,
               names: Iterable[str]) -> None:
        for name in names:
            if name not in placed and name not in present:
                placed.add(name)
                groups.setdefault(where, []).append(name)
