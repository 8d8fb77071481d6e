"""The budget gauge: one bar for the whole window, the compaction threshold marked on it, and
a row per layer with its tokens, share of the window and budget.

The screen hands the gauge each budget the engine publishes (`BudgetChanged`, through the
UI's one event bridge). Repaints are throttled to about 30 a second (a burst of changes costs
one repaint per frame) but the last value always shows.
"""

from __future__ import annotations

from asyncio import TimerHandle, get_running_loop
from time import monotonic

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from swetui.agent import ServerStatus, TurnFinished
from swetui.engine.budget import Budget, LayerUsage
from swetui.engine.cache import CacheView
from swetui.engine.context import ContextEngine
from swetui.engine.items import Layer
from swetui.ui.widgets.gauge_cache import CACHE_DELAY, LastTurn, cache_line
from swetui.ui.widgets.token_figures import (
    format_tokens,
    last_request_line,
    legend_text,
    used_figure,
)

FRAME = 1 / 30
"""The shortest time between two repaints."""

MAX_SERVER_LINES = 6
"""MCP servers listed under the system layer (more are summed on one line)."""
DOWN = ("failed", "crashed", "not started")
"""MCP server states the gauge shows as a fault."""

COMPACT_BELOW = 36
"""Terminal heights below this get the compact gauge (unless `compact` is set)."""

LAYER_MARKS: dict[Layer, str] = {
    Layer.SYSTEM: "█",
    Layer.MEMORY: "█",
    Layer.SUMMARY: "█",
    Layer.HISTORY: "█",
    Layer.TASK: "█",
    Layer.PINNED: "█",
    Layer.RESERVE: "▒",
}


def component_foreground(widget: Widget, name: str) -> Style:
    """A component class's colour and text style without its background, so it can be
    drawn on any row (cursor, selection) while translucent colours still blend right."""
    style = widget.get_component_rich_style(name)
    return style.without_color + Style(color=style.color)


def bar_cells(budget: Budget, width: int) -> list[tuple[Layer | None, int]]:
    """Split `width` cells between the layers (in order) and the free room (None).

    Rounding works on cumulative totals, so the used part is always as long as the total
    share of the window says, and a layer with any tokens at all gets at least one cell.
    """
    if width <= 0 or budget.limit <= 0:
        return []
    cells: list[tuple[Layer | None, int]] = []
    used = 0
    cumulative = 0
    for row in budget.layers:
        if row.tokens <= 0:
            continue
        cumulative += row.tokens
        end = min(width, round(width * cumulative / budget.limit))
        count = max(end - used, 1 if used < width else 0)
        if count:
            cells.append((row.name, count))
            used += count
    if used < width:
        cells.append((None, width - used))
    return cells


class BudgetGauge(Widget):
    """How full the context window is, live: the whole window as one bar, then each layer."""

    DEFAULT_CSS = """
    BudgetGauge {
        height: auto;
        padding: 0 1;
    }
    BudgetGauge > .budget-gauge--label { color: $text-muted; }
    BudgetGauge > .budget-gauge--total { color: $text; text-style: bold; }
    BudgetGauge > .budget-gauge--free { color: $panel-lighten-2; }
    BudgetGauge > .budget-gauge--threshold { color: $warning; text-style: bold; }
    BudgetGauge > .budget-gauge--over { color: $error; text-style: bold; }
    BudgetGauge > .budget-gauge--measured { color: $accent; }
    BudgetGauge > .budget-gauge--system { color: $secondary; }
    BudgetGauge > .budget-gauge--memory { color: $success; }
    BudgetGauge > .budget-gauge--summary { color: $accent; }
    BudgetGauge > .budget-gauge--history { color: $primary; }
    BudgetGauge > .budget-gauge--task { color: $warning; }
    BudgetGauge > .budget-gauge--pinned { color: $error-lighten-1; }
    BudgetGauge > .budget-gauge--reserve { color: $panel-lighten-3; }
    """

    COMPONENT_CLASSES = {
        "budget-gauge--label", "budget-gauge--total", "budget-gauge--free",
        "budget-gauge--threshold", "budget-gauge--over", "budget-gauge--measured",
        *(f"budget-gauge--{layer.value}" for layer in Layer),
    }

    BINDINGS = [Binding("question_mark", "legend", "Legend")]

    class Updated(Message):
        """The gauge shows a new budget (posted after each repaint, for the app and tests)."""

        def __init__(self, budget: Budget) -> None:
            super().__init__()
            self.budget = budget

    def __init__(self, engine: ContextEngine, *, id: str | None = None,  # noqa: A002
                 classes: str | None = None, compact: bool | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.engine = engine
        self.budget: Budget = engine.budget()
        """The budget on screen now."""
        self._pending: Budget | None = None
        self._last_paint = 0.0
        self._timer: TimerHandle | None = None
        self.compact: bool | None = compact
        """Force the compact (True) or full (False) layout; None picks by terminal height."""
        self.servers: tuple[ServerStatus, ...] = ()
        """The MCP servers, shown under the system layer with their tokens."""
        self.cache: CacheView | None = None
        """The next request split into expected-cached and fresh (after a first send)."""
        self.last_turn: LastTurn | None = None
        self._cache_timer: TimerHandle | None = None
        self.tooltip = legend_text()

    def action_legend(self) -> None:
        """Say what each figure of the gauge means (also its tooltip)."""
        self.notify(legend_text(), title="Budget figures", timeout=20, markup=False)

    def on_mount(self) -> None:
        self.show(self.engine.budget())
        # A cached prefix expires unused: look again now and then, not only on changes.
        self.set_interval(15, self.items_changed)

    def items_changed(self) -> None:
        """The context changed: work out the cache split again, shortly (a burst of changes
        costs one assembly)."""
        if self._cache_timer is None and self.engine.last_sent is not None:
            self._cache_timer = get_running_loop().call_later(CACHE_DELAY, self._update_cache)

    def turn_finished(self, event: TurnFinished) -> None:
        """Show the last turn's measured hit rate and cost."""
        if event.usage is not None and event.usage.input_tokens:  # a turn that sent nothing
            self.last_turn = LastTurn(event.usage, event.cost)       # keeps the last figures
        self.items_changed()
        self.refresh(layout=True)

    def _update_cache(self) -> None:
        self._cache_timer = None
        if self.engine.model != "offline":  # no provider, no cache, no cost
            self.cache = self.engine.cache_view(monotonic())
            self.refresh(layout=True)

    # -- showing ---------------------------------------------------------------------------

    def show(self, budget: Budget) -> None:
        """Show `budget` now, or at the next frame if the gauge repainted very recently."""
        self._pending = budget
        if self._timer is not None:
            return
        wait = FRAME - (monotonic() - self._last_paint)
        if wait <= 0:
            self._flush()
        else:
            # asyncio's timer: Textual's one-shot timer never fires when its time has passed
            # before its task starts (a pause of a few ms under load), and the gauge then
            # showed no budget again for the rest of the session
            self._timer = get_running_loop().call_later(wait, self._flush)

    def on_unmount(self) -> None:
        for timer in (self._timer, self._cache_timer):
            if timer is not None:
                timer.cancel()

    def _flush(self) -> None:
        self._timer = None
        if self._pending is None:
            return
        self.budget, self._pending = self._pending, None
        self._last_paint = monotonic()
        self.set_class(self.budget.needs_compaction, "-over-threshold")
        self.refresh(layout=True)
        self.post_message(self.Updated(self.budget))

    def show_servers(self, servers: tuple[ServerStatus, ...]) -> None:
        """Show each MCP server's share of the system layer."""
        self.servers = servers
        self.refresh(layout=True)

    def _server_lines(self, width: int) -> list[Text]:
        if not self.servers:
            return []
        if self.is_compact:
            sent = sum(status.sent_tokens for status in self.servers)
            tools = sum(len(status.tools) for status in self.servers)
            down = sum(status.state in DOWN for status in self.servers)
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append("  ⚙ MCP ", self._style("system"))
            line.append(f"{format_tokens(sent)} · ", self._style("label"))
            if down:  # first, so that a narrow gauge still shows it
                line.append(f"{down} of {len(self.servers)} down", self._style("over"))
                line.append(f" · {tools} tools", self._style("label"))
            else:
                line.append(f"{tools} tools · {len(self.servers)} servers", self._style("label"))
            line.truncate(width)
            return [line]
        shown = list(self.servers[:MAX_SERVER_LINES])
        lines = [self._server_line(status, width) for status in shown]
        rest = self.servers[MAX_SERVER_LINES:]
        if rest:
            line = Text(f"  ⚙ +{len(rest)} more: "
                        f"{format_tokens(sum(s.sent_tokens for s in rest))}",
                        self._style("label"), no_wrap=True, overflow="ellipsis")
            line.truncate(width)
            lines.append(line)
        return lines

    def _server_line(self, status: ServerStatus, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("  ⚙ ", self._style("system"))
        text.append(f"{status.name[:12]:<12}")
        text.append(f"{format_tokens(status.sent_tokens):>6}")
        if status.state != "ready":
            style = "over" if status.state in DOWN else "label"
            text.append(f" {status.state}", self._style(style))
        else:
            deferred = sum(1 for tool in status.tools if tool.state == "deferred")
            detail = f" {len(status.tools)} tools"
            if status.dropped:
                detail += ", dropped"
            elif deferred:
                detail += f", {deferred} deferred"
            text.append(detail, self._style("label"))
        text.truncate(width)
        return text

    @property
    def summary(self) -> str:
        """The gauge's headline as plain text (what a screen reader or a test reads)."""
        budget = self.budget
        return (f"{format_tokens(budget.counted)} / {format_tokens(budget.limit)} "
                f"· {budget.percent:.1f}%")

    @property
    def is_compact(self) -> bool:
        """Two layers per row and no threshold caption: for short terminals (80×24)."""
        if self.compact is not None:
            return self.compact
        return self.app.size.height < COMPACT_BELOW

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        layers = len(self.budget.layers)
        rows = 2 + (layers + 1) // 2 if self.is_compact else 3 + layers
        servers = 0
        if self.servers:
            servers = 1 if self.is_compact else min(len(self.servers), MAX_SERVER_LINES + 1)
        return rows + servers + (1 if self._has_measure_line else 0) + \
            (1 if (self.cache or self.last_turn) else 0)

    @property
    def _has_measure_line(self) -> bool:
        return self.budget.measured is not None or self.budget.calibration is not None

    def render(self) -> Text:
        width = max(self.content_size.width, 10)
        lines = [self._headline(width), self._bar(width)]
        if not self.is_compact:
            lines.append(self._threshold_line(width))
        if self._has_measure_line:
            lines.append(self._measured_line(width))
        if self.cache or self.last_turn:
            lines.append(cache_line(self.cache, self.last_turn, width, tokens=format_tokens,
                                    label=self._style("label"), cached=self._style("memory"),
                                    fresh=self._style("task")))
        if self.is_compact:
            rows = self.budget.layers
            half = width // 2
            for left, right in zip(rows[::2], [*rows[1::2], None], strict=True):
                line = self._layer_cell(left, half)
                if right is not None:
                    line.append_text(self._layer_cell(right, width - half))
                lines.append(line)
            lines.extend(self._server_lines(width))
        else:
            for row in self.budget.layers:
                lines.append(self._layer_line(row, width))
                if row.name is Layer.SYSTEM:
                    lines.extend(self._server_lines(width))
        text = Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
        text.no_wrap = True
        return text

    def _style(self, name: str) -> Style:
        return component_foreground(self, f"budget-gauge--{name}")

    def _headline(self, width: int) -> Text:
        budget = self.budget
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("Context ", self._style("label"))
        total_style = self._style("threshold" if budget.needs_compaction else "total")
        # The calibrated figure when the model's tokenizer is known (≈ marks it).
        text.append(used_figure(budget), total_style)
        text.append(f" / {format_tokens(budget.limit)}", self._style("label"))
        percent = f"{budget.percent:.1f}%"
        if budget.needs_compaction:
            percent = f"⚠ {percent}"
        text.append(" " * max(1, width - text.cell_len - len(percent)))
        text.append(percent, total_style)
        return text

    def _bar(self, width: int) -> Text:
        budget = self.budget
        text = Text(no_wrap=True)
        marker = min(width - 1, round(width * budget.threshold))
        position = 0
        for layer, count in bar_cells(budget, width):
            for _ in range(count):
                if position == marker:
                    style = self._style("threshold" if layer is None else "over")
                    text.append("┃" if layer is None else "╂", style)
                elif layer is None:
                    text.append("░", self._style("free"))
                else:
                    text.append(LAYER_MARKS[layer], self._style(layer.value))
                position += 1
        return text

    def _threshold_line(self, width: int) -> Text:
        budget = self.budget
        marker = min(width - 1, round(width * budget.threshold))
        label = f"compact at {budget.threshold:.0%} ({format_tokens(budget.threshold_tokens)})"
        style = self._style("over" if budget.needs_compaction else "label")
        text = Text(no_wrap=True, overflow="ellipsis")
        if marker >= len(label) + 1:
            text.append(" " * (marker - len(label) - 1) + label + " ▲", style)
        else:
            text.append(" " * marker + "▲ " + label, style)
        text.truncate(width)
        return text

    def _measured_line(self, width: int) -> Text:
        return last_request_line(self.budget, width, label=self._style("label"),
                                 figure=self._style("measured"))

    def _layer_cell(self, row: LayerUsage, width: int) -> Text:
        """A layer in half a row (compact mode): mark, name, tokens, share."""
        style = self._style("over") if row.over else Style()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(LAYER_MARKS[row.name] + " ", self._style(row.name.value))
        text.append(f"{row.name.value:<7}", style)
        text.append(f"{format_tokens(row.tokens):>5}", style)
        # The share only where it fits whole, with a space before the next cell: a cut
        # "…" would run into the neighbouring layer's mark.
        share = f" {row.share:>3.0%}"
        if len(text) + len(share) < width:
            text.append(share, self._style("over" if row.over else "label"))
        text.truncate(width, pad=True)
        return text

    def _layer_line(self, row: LayerUsage, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(LAYER_MARKS[row.name] + " ", self._style(row.name.value))
        name_style = self._style("over") if row.over else Style()
        text.append(f"{row.name.value:<8}", name_style)
        text.append(f"{format_tokens(row.tokens):>6}", self._style("over") if row.over else Style())
        text.append(f" {row.share:>6.1%}", self._style("label"))
        if row.budget is not None:
            text.append(f" / {format_tokens(row.budget):>5}",
                        self._style("over" if row.over else "label"))
        if row.over:
            text.append(" over", self._style("over"))
        text.truncate(width)
        return text
