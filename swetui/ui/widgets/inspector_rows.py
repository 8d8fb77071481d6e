"""The inspector's row model: context items grouped by layer, kept in engine order.

`InspectorRows` keeps one list of ids per layer plus the flat row list the widget draws
(a header row per non-empty layer, then its items). A change that keeps an item in its layer
touches nothing here; only a new item or a layer change (pin/unpin) re-flattens the list,
which is O(items) with no token counting or rendering.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable
from dataclasses import dataclass

from swetui.agent import mcp_server_of
from swetui.engine.items import LAYER_ORDER, ContextItem, ItemState, Layer
from swetui.engine.payloads import CompactionOutput, RunningSummaryPayload


@dataclass(frozen=True)
class HeaderRow:
    """The row that opens a layer's group, or (with `group`) one MCP server's tools inside
    the system layer."""

    layer: Layer
    group: str | None = None


Row = HeaderRow | str
"""A header, or the id of an item."""


def listed(item: ContextItem) -> bool:
    """Whether the inspector shows an item. Not what an undone compaction made, nor a running
    summary a newer one replaced: neither can be sent again, and listing them made two
    "Running summary" rows. Both stay in the archive (recall still finds them)."""
    payload = item.payload
    if isinstance(payload, CompactionOutput) and payload.undone:
        return False
    return not (isinstance(payload, RunningSummaryPayload)
                and item.state is ItemState.COMPACTED)


class InspectorRows:
    """Items grouped by effective layer, in the order the engine holds them."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self._groups: dict[Layer, list[tuple[int, str]]] = {layer: [] for layer in LAYER_ORDER}
        self._layer: dict[str, Layer] = {}
        self._rank: dict[str, int] = {}
        self._index: dict[Row, int] = {}
        self._next_rank = 0

    def __len__(self) -> int:
        return len(self.rows)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._layer

    def load(self, items: Iterable[ContextItem]) -> None:
        """Start over from the engine's items (in engine order)."""
        self._groups = {layer: [] for layer in LAYER_ORDER}
        self._layer.clear()
        self._rank.clear()
        self._next_rank = 0
        for item in items:
            rank = self._rank_of(item.id)  # ranked even when hidden: engine order if shown
            if not listed(item):
                continue
            self._layer[item.id] = item.effective_layer
            self._groups[item.effective_layer].append((rank, item.id))
        self._flatten()

    def apply(self, item: ContextItem | None, item_id: str) -> bool:
        """Take in one changed item (None when it is gone); True if the row order changed."""
        current = self._layer.get(item_id)
        if item is not None:
            self._rank_of(item_id)
        if item is None or not listed(item):
            if current is None:
                return False
            self._groups[current].remove((self._rank[item_id], item_id))
            del self._layer[item_id]
            return True
        layer = item.effective_layer
        if current is layer:
            return False
        rank = self._rank_of(item_id)
        if current is not None:
            self._groups[current].remove((rank, item_id))
        insort(self._groups[layer], (rank, item_id))
        self._layer[item_id] = layer
        return True

    def commit(self) -> None:
        """Rebuild the flat row list after `apply` reported order changes."""
        self._flatten()

    def index_of(self, row: Row) -> int | None:
        return self._index.get(row)

    def layer_of(self, item_id: str) -> Layer | None:
        return self._layer.get(item_id)

    def layer_at(self, index: int) -> Layer | None:
        """The layer whose group holds row `index`."""
        if not 0 <= index < len(self.rows):
            return None
        row = self.rows[index]
        return row.layer if isinstance(row, HeaderRow) else self._layer[row]

    def items_in(self, layer: Layer) -> list[str]:
        return [item_id for _, item_id in self._groups[layer]]

    def items_under(self, header: HeaderRow) -> list[str]:
        """The items a header opens: its layer's, or one MCP server's tools."""
        ids = self.items_in(header.layer)
        if header.group is None:
            return ids
        return [item_id for item_id in ids if mcp_server_of(item_id) == header.group]

    def group_at(self, index: int) -> list[str]:
        """What selecting the group at row `index` selects: a header's items, else every
        item of the row's layer."""
        layer = self.layer_at(index)
        if layer is None:
            return []
        row = self.rows[index]
        return self.items_under(row) if isinstance(row, HeaderRow) else self.items_in(layer)

    def in_row_order(self, item_ids: set[str]) -> list[str]:
        """These items' ids, in the order their rows are drawn."""
        return [row for row in self.rows if isinstance(row, str) and row in item_ids]

    def _rank_of(self, item_id: str) -> int:
        rank = self._rank.get(item_id)
        if rank is None:
            rank = self._rank[item_id] = self._next_rank
            self._next_rank += 1
        return rank

    def _flatten(self) -> None:
        rows: list[Row] = []
        for layer in LAYER_ORDER:
            group = self._groups[layer]
            if group:
                rows.append(HeaderRow(layer))
                rows.extend(_with_servers(layer, [item_id for _, item_id in group]))
        self.rows = rows
        self._index = {row: index for index, row in enumerate(rows)}


def _with_servers(layer: Layer, ids: list[str]) -> list[Row]:
    """A layer's rows with MCP tools gathered under a header per server (system layer)."""
    if layer is not Layer.SYSTEM:
        return list(ids)
    plain: list[Row] = []
    servers: dict[str, list[str]] = {}
    for item_id in ids:
        server = mcp_server_of(item_id)
        if server is None:
            plain.append(item_id)
        else:
            servers.setdefault(server, []).append(item_id)
    for server, tools in servers.items():
        plain.append(HeaderRow(layer, server))
        plain.extend(sorted(tools))  # by name: a server's tools arrive in any order
    return plain
