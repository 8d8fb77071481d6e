"""How one inspector row looks: the columns, their widths and their marks.

Columns, left to right: selection mark, pin mark (click it to pin/unpin), title, tokens,
state, flags (✎ edited, ↻ stale: press r to re-read). Every cell carries the row index in
its style meta so a click knows which row and column it hit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from swetui.engine.context import ContextEngine, UnknownItem
from swetui.engine.items import ContextItem, ItemState, Layer
from swetui.text import one_line
from swetui.ui.widgets.gauge import format_tokens
from swetui.ui.widgets.inspector_rows import HeaderRow, InspectorRows, Row

PIN_MARK = "◆"
UNPINNED_MARK = "◇"
SELECTED_MARK = "●"
EDITED_MARK = "✎"
STALE_MARK = "↻"

TOKENS_WIDTH = 6
STATE_WIDTH = 5
FIXED_WIDTH = 1 + 1 + 1 + 1 + TOKENS_WIDTH + 1 + STATE_WIDTH + 1 + 2
"""Everything but the title: selection, pin, spaces, tokens, state, flags."""

STATE_LABELS: dict[ItemState, str] = {
    ItemState.INCLUDED: "sent",
    ItemState.DROPPED: "drop",
    ItemState.COMPACTED: "comp",
    ItemState.STALE: "stale",
    ItemState.DEFERRED: "defer",
    ItemState.ARCHIVED: "arch",
}

STATE_HELP: tuple[tuple[str, str], ...] = (
    ("sent", "sent to the model in full"),
    ("drop", "left out of the request (d brings it back)"),
    ("comp", "folded by a compaction: a header or summary stands in for it (d restores)"),
    ("stale", "its file changed on disk since it was read (r re-reads it)"),
    ("defer", "an MCP tool sent as its name only, until the model loads it"),
    ("arch", "in the archive only: not sent, the model can recall it"),
    (PIN_MARK, "pinned: always sent in full, never dropped or compacted (p)"),
    (EDITED_MARK, "edited by you: your version is sent (e; ctrl+r in the editor restores)"),
    (SELECTED_MARK, "selected: d, p, c and r act on every selected item (space, a)"),
)
"""What each state word and mark of an inspector row means (the legend: ? and /help)."""


def legend() -> str:
    """The inspector's legend as plain text, one state or mark a line."""
    return "\n".join(f"{word:<5} {meaning}" for word, meaning in STATE_HELP)


LAYER_TITLES: dict[Layer, str] = {
    Layer.SYSTEM: "System",
    Layer.MEMORY: "Memory",
    Layer.SUMMARY: "Summary",
    Layer.HISTORY: "History",
    Layer.TASK: "Task",
    Layer.PINNED: "Pinned",
    Layer.RESERVE: "Reserve",
}


@dataclass(frozen=True)
class RowStyles:
    """The Rich styles of the row parts, read from the widget's component classes."""

    header: Style
    muted: Style
    pin: Style
    selected_mark: Style
    dropped: Style
    stale: Style
    edited: Style
    compacted: Style

    @classmethod
    def read(cls, part: Callable[[str], Style]) -> RowStyles:
        """The styles, `part(name)` giving each one (from a component class)."""
        return cls(header=part("header"), muted=part("muted"), pin=part("pin"),
                   selected_mark=part("selected-mark"), dropped=part("dropped"),
                   stale=part("stale"), edited=part("edited"), compacted=part("compacted"))


def render_row(row: Row, engine: ContextEngine, rows: InspectorRows, selected: set[str],
               width: int, *, index: int, styles: RowStyles) -> Text | None:
    """Row `index` of the list: a layer header or an item (None: the item is gone)."""
    if isinstance(row, HeaderRow) and row.group is not None:
        ids = rows.items_under(row)
        return render_group(row.group, ids, engine, width, row=index, styles=styles)
    if isinstance(row, HeaderRow):
        ids = rows.items_in(row.layer)
        tokens = sum(engine.sent_tokens(item_id) for item_id in ids)
        chosen = sum(1 for item_id in ids if item_id in selected)
        states = Counter(engine.get(item_id).state for item_id in ids if item_id in engine)
        return render_header(row.layer, len(ids), tokens, width, selected=chosen, row=index,
                             styles=styles, states=states)
    try:
        item = engine.get(row)
    except UnknownItem:
        return None
    return render_item(item, engine.sent_tokens(row), width, selected=row in selected,
                       row=index, styles=styles)


def render_item(item: ContextItem, sent_tokens: int, width: int, *, selected: bool,
                row: int, styles: RowStyles) -> Text:
    """One item row, exactly `width` cells wide."""
    meta = Style(meta={"row": row})
    text = Text(no_wrap=True, end="")
    text.append(SELECTED_MARK if selected else " ",
                styles.selected_mark + Style(meta={"row": row, "select": True}))
    text.append(PIN_MARK if item.pinned else UNPINNED_MARK,
                (styles.pin if item.pinned else styles.muted) + Style(meta={"row": row,
                                                                            "pin": True}))
    text.append(" ", meta)
    title_width = max(4, width - FIXED_WIDTH)
    title = Text(one_line(item.title.replace("\n", " ")), no_wrap=True, overflow="ellipsis",
                 end="")
    title.truncate(title_width, overflow="ellipsis", pad=True)
    title_style = _title_style(item, styles)
    if title_style:
        title.stylize(title_style)
    title.stylize(meta)
    text.append_text(title)
    text.append(" ", meta)
    if sent_tokens or item.sent:
        tokens, tokens_style = format_tokens(sent_tokens), Style()
    else:
        tokens, tokens_style = format_tokens(item.tokens), styles.dropped
    text.append(f"{tokens:>{TOKENS_WIDTH}}", tokens_style + meta)
    text.append(" ", meta)
    state_style = {ItemState.DROPPED: styles.dropped, ItemState.STALE: styles.stale,
                   ItemState.COMPACTED: styles.compacted,
                   ItemState.ARCHIVED: styles.compacted}.get(item.state, styles.muted)
    text.append(f"{STATE_LABELS[item.state]:<{STATE_WIDTH}}", state_style + meta)
    text.append(" ", meta)
    text.append(EDITED_MARK if item.edited else " ", styles.edited + meta)
    text.append(STALE_MARK if item.state is ItemState.STALE else " ", styles.stale + meta)
    text.truncate(width, pad=True)
    return text


def _title_style(item: ContextItem, styles: RowStyles) -> Style | None:
    if item.state is ItemState.DROPPED and not item.pinned:
        return styles.dropped
    if item.state is ItemState.COMPACTED and not item.pinned:
        return styles.compacted
    if item.state is ItemState.STALE:
        return styles.stale
    return None


def render_group(server: str, ids: list[str], engine: ContextEngine, width: int, *, row: int,
                 styles: RowStyles) -> Text:
    """The row that opens one MCP server's tools: name, tools (deferred), sent tokens."""
    meta = Style(meta={"row": row})
    tokens = sum(engine.sent_tokens(item_id) for item_id in ids)
    deferred = sum(1 for item_id in ids if item_id in engine
                   and engine.get(item_id).state is ItemState.DEFERRED)
    label = f"⚙ MCP {one_line(server)} · {len(ids)} tool{'s' if len(ids) != 1 else ''}"
    if deferred:
        full = sum(engine.get(item_id).tokens for item_id in ids if item_id in engine)
        label += f" · {deferred} deferred ({format_tokens(full)} if loaded)"
    return _label_and_tokens(Text("  ", no_wrap=True, end=""), label, tokens, width,
                             styles.muted + meta, meta)


def render_header(layer: Layer, count: int, tokens: int, width: int, *, selected: int,
                  row: int, styles: RowStyles,
                  states: Mapping[ItemState, int] | None = None) -> Text:
    """The row that opens a layer's group: name, item count (split by state when some
    are not sent whole), sent tokens."""
    meta = Style(meta={"row": row})
    label = f"{LAYER_TITLES[layer]} · {_count_label(count, states or {})}"
    if selected:
        label += f" · {selected} selected"
    opener = Text(no_wrap=True, end="")
    opener.append("▾ ", styles.header + meta)
    return _label_and_tokens(opener, label, tokens, width, styles.header + meta, meta)


def _count_label(count: int, states: Mapping[ItemState, int]) -> str:
    """"12 items", or "9 sent · 3 compacted" when some are not sent whole: the count
    of what is sent falls when items fold, instead of growing with what a compaction adds."""
    whole = states.get(ItemState.INCLUDED, 0) + states.get(ItemState.STALE, 0)
    if whole >= count:
        return f"{count} item{'s' if count != 1 else ''}"
    out = [f"{states[state]} {state.value}" for state in ItemState
           if states.get(state) and state not in (ItemState.INCLUDED, ItemState.STALE)]
    return " · ".join([f"{whole} sent", *out])


def _label_and_tokens(text: Text, label: str, tokens: int, width: int, style: Style,
                      meta: Style) -> Text:
    """A group row after its two-cell opener: the label cut to fit, then the tokens at the
    right edge, the whole row `width` cells wide."""
    right = format_tokens(tokens)
    room = max(1, width - 2 - len(right) - 1)
    left = Text(label, no_wrap=True, end="")
    left.truncate(room, overflow="ellipsis", pad=True)
    left.stylize(style)
    text.append_text(left)
    text.append(" ", meta)
    text.append(right, style)
    text.truncate(width, pad=True)
    return text
