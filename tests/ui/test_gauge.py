"""The budget gauge: snapshots of its states, live updates and the throttle."""

from __future__ import annotations

from time import monotonic

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from swetui.agent import ServerStatus
from swetui.agent.approvals import ApprovalQueue
from swetui.engine.budget import Budget, BudgetSettings
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer
from swetui.ui.widgets import ApprovalQueuePane, BudgetGauge, ContextInspector
from swetui.ui.widgets import gauge as gauge_module
from swetui.ui.widgets.gauge import FRAME, bar_cells, format_tokens
from tests.ui.panes_app import PanesApp
from tests.ui.test_approvals import bash_action, edit_action
from tests.ui.waits import until


def build_engine(history_words: int = 200, memory_words: int = 100) -> ContextEngine:
    engine = ContextEngine(BudgetSettings(limit=4_000, reserve=400, memory=300, summary=100,
                                          threshold=0.8), model="offline")
    engine.add(ContextItem(id="s1", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                           title="System prompt", content="You are swetui. " * 40))
    engine.add(ContextItem(id="m1", kind=ItemKind.MEMORY_FILE, layer=Layer.MEMORY,
                           title="SWETUI.md", content="memory " * memory_words))
    engine.add(ContextItem(id="u1", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                           title="a long conversation", content="talk " * history_words,
                           turn_created=1))
    engine.add(ContextItem(id="f1", kind=ItemKind.FILE, layer=Layer.TASK, title="src/app.py",
                           content="def main():\n    return 1\n" * 20))
    return engine


class GaugeApp(PanesApp):
    CSS = "#column { width: 40; height: auto; }"

    def __init__(self, engine: ContextEngine, compact: bool | None = False) -> None:
        super().__init__(engine.bus)
        self.engine = engine
        self.compact = compact
        self.shown: list[Budget] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="column"):
            yield BudgetGauge(self.engine, id="gauge", compact=self.compact)

    def on_budget_gauge_updated(self, message: BudgetGauge.Updated) -> None:
        self.shown.append(message.budget)


class NarrowWorkspace(PanesApp):
    """The right column of an 80×24 workspace: gauge, inspector and approvals together."""

    CSS = """
    #transcript { width: 1fr; border-right: solid $panel; }
    #column { width: 40; }
    #inspector { height: 1fr; }
    #approvals { height: 1fr; }
    """

    def __init__(self, engine: ContextEngine) -> None:
        super().__init__(engine.bus)
        self.engine = engine
        self.queue = ApprovalQueue(engine.bus)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("(transcript)", id="transcript")
            with Vertical(id="column"):
                yield BudgetGauge(self.engine, id="gauge")
                yield ContextInspector(self.engine, id="inspector")
                yield ApprovalQueuePane(self.queue, id="approvals")

    def on_mount(self) -> None:
        self.queue.submit(edit_action())
        self.queue.submit(bash_action())
        self.query_one(ContextInspector).focus()


# -- snapshots -------------------------------------------------------------------------------


def test_snapshot_gauge_normal(snap_compare) -> None:
    assert snap_compare(GaugeApp(build_engine()), terminal_size=(40, 12))


def test_snapshot_gauge_over_threshold_measured(snap_compare) -> None:
    engine = build_engine(history_words=2_900, memory_words=400)
    engine.record_usage(3_700, engine.budget().total)
    assert engine.budget().needs_compaction
    assert engine.budget().layer(Layer.MEMORY).over
    assert snap_compare(GaugeApp(engine), terminal_size=(40, 13))


def test_snapshot_gauge_compact_over_threshold(snap_compare) -> None:
    engine = build_engine(history_words=2_900, memory_words=400)
    engine.record_usage(3_700, engine.budget().total)
    assert snap_compare(GaugeApp(engine, compact=True), terminal_size=(40, 8))


def test_snapshot_narrow_workspace(snap_compare) -> None:
    async def before(pilot) -> None:
        pane = pilot.app.query_one(ApprovalQueuePane)
        await until(pilot, lambda: len(pane.actions) == 2 and pane.selected_action is not None,
                    "both actions are listed")

    assert snap_compare(NarrowWorkspace(build_engine()), terminal_size=(80, 24),
                        run_before=before)


# -- behaviour -------------------------------------------------------------------------------


def test_format_tokens() -> None:
    assert [format_tokens(n) for n in (0, 812, 1_000, 12_345, 256_000, 1_250_000)] == [
        "0", "812", "1k", "12.3k", "256k", "1.2M"]


def test_bar_cells_fill_width_and_show_every_nonempty_layer() -> None:
    budget = build_engine().budget()
    cells = bar_cells(budget, 30)
    assert sum(count for _, count in cells) == 30
    assert {layer for layer, _ in cells if layer is not None} == {
        row.name for row in budget.layers if row.tokens}


async def test_gauge_follows_engine_changes() -> None:
    engine = build_engine()
    app = GaugeApp(engine)
    async with app.run_test(size=(40, 12)) as pilot:
        gauge = app.query_one(BudgetGauge)
        before = gauge.budget.total
        engine.drop("u1")
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge caught up")
        assert gauge.budget.total < before
        assert format_tokens(gauge.budget.total) in gauge.summary
        engine.set_draft("a prompt being typed " * 20)
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge caught up")
        assert "measured" not in gauge.render().plain
        engine.record_usage(900, 800)
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge caught up")
        plain = gauge.render().plain
        assert "measured 900 · est. 800 ×1.12" in plain


async def test_burst_of_changes_is_throttled_but_final_value_shows() -> None:
    engine = build_engine()
    app = GaugeApp(engine)
    async with app.run_test(size=(40, 12)) as pilot:
        gauge = app.query_one(BudgetGauge)
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge shows")
        app.shown.clear()
        for n in range(200):
            engine.set_draft("word " * n)
        # The last value always shows, at the latest a frame after the burst.
        await until(pilot, lambda: app.shown and app.shown[-1] == engine.budget(),
                    "the gauge showed the final budget")
        assert 1 <= len(app.shown) < 20
        assert app.shown[-1] == engine.budget()
        assert app.query_one(BudgetGauge).budget == engine.budget()


async def test_a_repaint_due_at_once_still_shows_the_budget(monkeypatch) -> None:
    """A budget that comes a hair under a frame after the last repaint still shows. Its
    repaint was a Textual one-shot timer, which never fires when its time has passed before
    its task starts (a process paused for a few milliseconds, under load): the gauge then
    showed no budget again for the rest of the session."""
    engine = build_engine()
    app = GaugeApp(engine)
    async with app.run_test(size=(40, 12)) as pilot:
        gauge = app.query_one(BudgetGauge)
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge shows")
        now = [monotonic() + 100]  # the gauge's clock, moved by hand
        monkeypatch.setattr(gauge_module, "monotonic", lambda: now[0])
        engine.set_draft("one")  # more than a frame since the last repaint: at once
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge shows one")
        now[0] += FRAME - 1e-9  # the next repaint is due in a nanosecond
        engine.set_draft("one two three")
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge shows three")


async def test_gauge_updates_from_a_worker_thread() -> None:
    engine = build_engine()
    app = GaugeApp(engine)
    async with app.run_test(size=(40, 12)) as pilot:
        before = engine.budget()
        worker = app.run_worker(lambda: engine.drop("f1"), thread=True)
        await worker.wait()
        gauge = app.query_one(BudgetGauge)
        await until(pilot, lambda: gauge.budget == engine.budget() != before,
                    "the gauge showed the change made in the thread")


async def test_a_compact_gauge_says_how_many_mcp_servers_are_down() -> None:
    app = GaugeApp(build_engine(), compact=True)
    async with app.run_test(size=(40, 12)) as pilot:
        gauge = app.query_one(BudgetGauge)
        status = ServerStatus(name="a", origin="user", transport="stdio", target="a",
                              state="ready")
        gauge.show_servers((status, status.model_copy(update={"name": "b"}),
                            status.model_copy(update={"name": "c"})))
        await pilot.pause()
        assert "3 servers" in gauge.render().plain and "down" not in gauge.render().plain
        gauge.show_servers((status, status.model_copy(update={"name": "b", "state": "crashed"}),
                            status.model_copy(update={"name": "c"})))
        await pilot.pause()
        assert "1 of 3 down" in gauge.render().plain  # at 80x24 a crash is not hidden
