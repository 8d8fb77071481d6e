"""The context inspector: snapshots of its states and keys that steer the next request."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.widgets import TextArea

from swetui.engine.budget import BudgetSettings
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Source
from swetui.ui.screens.item_editor import ItemEditor
from swetui.ui.screens.item_preview import ItemPreview
from swetui.ui.screens.request_view import RequestView
from swetui.ui.widgets import BudgetGauge, ContextInspector
from swetui.ui.widgets.gauge import format_tokens
from tests.ui.panes_app import PanesApp
from tests.ui.screen_text import screen_text
from tests.ui.waits import notices, until

APP_SOURCE = "def main() -> int:\n    return compute(41) + 1\n\n\ndef compute(x: int) -> int:\n" \
             "    return x\n"


def build_engine() -> ContextEngine:
    """A small, fixed context: every layer, one item in each interesting state."""
    engine = ContextEngine(BudgetSettings(limit=8_000, reserve=1_000, memory=300, summary=100),
                           model="offline")
    add = engine.add
    add(ContextItem(id="s1", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                    title="System prompt", content="You are swetui, a coding agent. " * 20))
    add(ContextItem(id="m1", kind=ItemKind.MEMORY_FILE, layer=Layer.MEMORY, title="SWETUI.md",
                    content="# Project\n\nA terminal workspace.\n" * 12,
                    source=Source(path="SWETUI.md")))
    add(ContextItem(id="u1", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                    title="fix the off-by-one in compute", content="fix the off-by-one in "
                    "compute, please", turn_created=1))
    add(ContextItem(id="a1", kind=ItemKind.ASSISTANT_MESSAGE, layer=Layer.HISTORY,
                    title="I will read src/app.py first", content="I will read src/app.py "
                    "first and then change compute.", turn_created=1))
    add(ContextItem(id="u2", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                    title="and add a test", content="and add a test for it", turn_created=2))
    add(ContextItem(id="f1", kind=ItemKind.FILE, layer=Layer.TASK, title="src/app.py",
                    content=APP_SOURCE, source=Source(path="src/app.py")))
    add(ContextItem(id="f2", kind=ItemKind.FILE, layer=Layer.TASK, title="src/util.py",
                    content="def helper():\n    return 2\n" * 10,
                    source=Source(path="src/util.py")))
    add(ContextItem(id="g1", kind=ItemKind.GREP, layer=Layer.TASK, title='grep "compute"',
                    content="src/app.py:2: return compute(41) + 1\n" * 6))
    return engine


def decorate(engine: ContextEngine) -> ContextEngine:
    """Pinned, dropped, stale and edited items, as a user would leave them."""
    engine.pin("f1")
    engine.drop("g1")
    engine.mark_stale("f2")
    engine.edit("a1", "I will read src/app.py.")
    return engine


class InspectorApp(PanesApp):
    """The gauge above the inspector, as the right column of the workspace shows them."""

    CSS = "#column { width: 40; }"

    def __init__(self, engine: ContextEngine, root: Path | None = None) -> None:
        super().__init__(engine.bus)
        self.engine = engine
        self.root = root
        self.compact_requests: list[tuple[str, ...]] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="column"):
            yield BudgetGauge(self.engine, id="gauge")
            yield ContextInspector(self.engine, id="inspector", root=self.root)

    def on_mount(self) -> None:
        self.query_one(ContextInspector).focus()

    def on_context_inspector_compact_requested(self,
                                               message: ContextInspector.CompactRequested
                                               ) -> None:
        self.compact_requests.append(message.item_ids)


def request_text(engine: ContextEngine) -> str:
    request = engine.assemble().request
    return request.system + "\n".join(message.content for message in request.messages) + \
        request.context


# -- snapshots -------------------------------------------------------------------------------


def test_snapshot_inspector_states(snap_compare) -> None:
    assert snap_compare(InspectorApp(decorate(build_engine())), terminal_size=(40, 30))


def test_snapshot_inspector_selection(snap_compare) -> None:
    async def select(pilot) -> None:
        await pilot.press("down", "down", "down", "down", "space", "space")
        inspector = pilot.app.query_one(ContextInspector)
        await until(pilot, lambda: inspector.selected == {"u1", "a1"}
                    and inspector.cursor_item.id == "u2", "two items are selected")

    assert snap_compare(InspectorApp(build_engine()), terminal_size=(40, 30),
                        run_before=select)


def test_snapshot_what_is_sent(snap_compare) -> None:
    async def view(pilot) -> None:
        await pilot.press("w")
        await until(pilot, lambda: isinstance(pilot.app.screen, RequestView),
                    "the request opened")

    assert snap_compare(InspectorApp(decorate(build_engine())), terminal_size=(80, 30),
                        run_before=view)


def test_snapshot_editor(snap_compare) -> None:
    async def edit(pilot) -> None:
        inspector = pilot.app.query_one(ContextInspector)
        inspector.move_to("a1")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(pilot.app.screen, ItemEditor), "the editor opened")

    assert snap_compare(InspectorApp(decorate(build_engine())), terminal_size=(80, 24),
                        run_before=edit)


def test_snapshot_preview_code(snap_compare) -> None:
    async def preview(pilot) -> None:
        pilot.app.query_one(ContextInspector).move_to("f1")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, ItemPreview),
                    "the preview opened")

    assert snap_compare(InspectorApp(build_engine()), terminal_size=(80, 24),
                        run_before=preview)


# -- keys ------------------------------------------------------------------------------------


async def test_pin_moves_item_to_pinned_layer_and_keeps_cursor() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.move_to("f2")
        await pilot.press("p")
        await until(pilot, lambda: inspector.rows.layer_of("f2") is Layer.PINNED,
                    "f2 moved to the pinned layer")
        assert engine.get("f2").pinned
        assert inspector.cursor_item is not None and inspector.cursor_item.id == "f2"
        assert engine.budget().layer(Layer.PINNED).tokens == engine.sent_tokens("f2")
        await pilot.press("p")
        await until(pilot, lambda: inspector.rows.layer_of("f2") is not Layer.PINNED,
                    "f2 left the pinned layer")
        assert not engine.get("f2").pinned
        assert inspector.cursor_item.id == "f2"


async def test_drop_changes_request_and_gauge() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        gauge = app.query_one(BudgetGauge)
        inspector = app.query_one(ContextInspector)
        before = gauge.budget.total
        assert "def compute" in request_text(engine)
        inspector.move_to("f1")
        await pilot.press("d")
        await until(pilot, lambda: gauge.budget == engine.budget(), "the gauge caught up")
        assert engine.get("f1").state is ItemState.DROPPED
        assert "def compute" not in request_text(engine)
        assert gauge.budget.total < before
        assert gauge.summary.startswith(format_tokens(engine.budget().total) + " / 8k")
        await pilot.press("d")
        await until(pilot, lambda: gauge.budget.total == before, "the gauge is back")
        assert engine.get("f1").state is ItemState.INCLUDED


async def test_edit_in_modal_is_what_is_sent_and_revert_restores() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(80, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.move_to("u2")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        editor = app.screen
        editor.query_one("TextArea").text = "add a regression test named test_compute"
        await pilot.press("ctrl+s")
        gauge = app.query_one(BudgetGauge)
        await until(pilot, lambda: app.screen is not editor and engine.get("u2").edited
                    and gauge.budget == engine.budget(), "the edit was saved and counted")
        item = engine.get("u2")
        assert item.edited and item.original == "and add a test for it"
        assert "test_compute" in request_text(engine)
        assert "and add a test for it" not in request_text(engine)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: not engine.get("u2").edited, "the edit was reverted")
        assert "and add a test for it" in request_text(engine)


async def test_escape_in_editor_changes_nothing() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(80, 30)) as pilot:
        app.query_one(ContextInspector).move_to("u1")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        app.screen.query_one("TextArea").text = "something else"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen.focused, ContextInspector),
                    "the editor closed and the inspector has the focus")
        assert not engine.get("u1").edited


async def test_multi_select_then_drop_drops_all_selected() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.move_to("u1")
        await pilot.press("space", "shift+down")
        await until(pilot, lambda: inspector.selected == {"u1", "a1", "u2"}, "three selected")
        await pilot.press("d")
        await until(pilot, lambda: engine.get("u2").state is ItemState.DROPPED,
                    "the selection was dropped")
        assert [engine.get(i).state for i in ("u1", "a1", "u2")] == [ItemState.DROPPED] * 3
        assert engine.get("f1").state is ItemState.INCLUDED
        assert "off-by-one" not in request_text(engine)
        await pilot.press("escape")
        await until(pilot, lambda: not inspector.selected, "escape cleared the selection")


async def test_select_layer_and_compact_posts_message() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.move_to("f2")
        await pilot.press("a")
        await until(pilot, lambda: inspector.selected == {"f1", "f2", "g1"},
                    "the task layer is selected")
        await pilot.press("c")
        await until(pilot, lambda: app.compact_requests, "compaction was asked for")
        assert app.compact_requests == [("f1", "f2", "g1")]
        await pilot.press("a")
        await until(pilot, lambda: not inspector.selected, "the selection was cleared")


@contextlib.asynccontextmanager
async def refreshing_stale_file(root: Path) -> AsyncIterator[
        tuple[ContextEngine, InspectorApp, Pilot[None]]]:
    """The inspector over `root` with its file item f2 (`src/util.py`) stale, just after
    `r` (refresh from disk) was pressed on it."""
    engine = build_engine()
    engine.mark_stale("f2")
    app = InspectorApp(engine, root=root)
    async with app.run_test(size=(40, 30)) as pilot:
        app.query_one(ContextInspector).move_to("f2")
        await pilot.press("r")
        yield engine, app, pilot


async def test_refresh_rereads_stale_file_from_root(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "util.py").write_text("def helper():\n    return 3\n")
    async with refreshing_stale_file(tmp_path) as (engine, _app, pilot):
        await until(pilot, lambda: engine.get("f2").state is ItemState.INCLUDED,
                    "the stale item was read again")
        item = engine.get("f2")
        assert item.state is ItemState.INCLUDED
        assert item.content == "def helper():\n    return 3\n"
        assert "return 3" in request_text(engine)


async def test_what_is_sent_shows_the_assembled_request() -> None:
    engine = decorate(build_engine())
    app = InspectorApp(engine)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, RequestView), "the request opened")
        view = app.screen
        assert isinstance(view, RequestView)
        assert view.result.request == engine.assemble().request
        json_text = view.query_one("#request-json").text
        assert "I will read src/app.py." in json_text
        assert "src/util.py" in json_text
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, RequestView), "it closed")


async def test_preview_opens_for_item_and_closes() -> None:
    app = InspectorApp(build_engine())
    async with app.run_test(size=(80, 30)) as pilot:
        app.query_one(ContextInspector).move_to("f1")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ItemPreview), "the preview opened")
        assert app.screen.item.id == "f1"
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ItemPreview), "it closed")


async def test_click_pin_column_toggles_pin_and_click_row_moves_cursor() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        row = inspector.rows.index_of("u2")
        await pilot.click(inspector, offset=(5, row))
        await until(pilot, lambda: inspector.cursor_item.id == "u2", "the cursor moved")
        assert not engine.get("u2").pinned
        await pilot.click(inspector, offset=(1, row))
        await until(pilot, lambda: engine.get("u2").pinned, "the click pinned it")
        assert inspector.cursor_item.id == "u2"


async def test_new_items_appear_and_cursor_stays_put() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.move_to("f1")
        engine.add(ContextItem(id="u3", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                               title="one more thing", content="one more thing",
                               turn_created=3))
        await until(pilot, lambda: inspector.rows.index_of("u3") is not None,
                    "the new item is listed")
        assert inspector.rows.index_of("u3") == inspector.rows.index_of("u2") + 1
        assert inspector.cursor_item.id == "f1"


async def test_two_thousand_items_update_incrementally() -> None:
    engine = build_engine()
    engine.add_many(ContextItem(id=f"t{i}", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                                title=f"read_file src/module_{i}.py", content=f"line {i}\n",
                                turn_created=3 + i // 10) for i in range(2_000))
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        assert len(inspector.rows) == 2_000 + 8 + 4  # items and four layer headers
        rows_before = inspector.rows.rows
        inspector.move_to("t1500")
        await pilot.press("d")
        await until(pilot, lambda: engine.get("t1500").state is ItemState.DROPPED,
                    "t1500 was dropped")
        assert inspector.rows.rows is rows_before  # no re-flatten for an in-place change
        assert inspector.cursor_item.id == "t1500"


async def test_question_mark_explains_the_states_and_a_header_key_says_what_to_do() -> None:
    engine = build_engine()
    app = InspectorApp(engine)
    async with app.run_test(size=(40, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.focus()
        await pilot.press("question_mark")
        await until(pilot, lambda: any("folded by a compaction" in note.message
                                       for note in notices(app)), "the legend")
        legend = next(note.message for note in notices(app)
                      if note.title == "Context item states")
        for word in ("sent", "drop", "comp", "stale", "✎", "◆"):
            assert f"\n{word} " in f"\n{legend}", legend
        before = [item.state for item in engine]
        inspector.action_first()  # the first row is the system layer's header
        await pilot.press("d")
        await until(pilot, lambda: any("layer header" in note.message
                                       for note in notices(app)), "said what to do")
        assert [item.state for item in engine] == before  # and dropped nothing


async def test_a_numbered_read_shows_one_column_of_line_numbers() -> None:
    engine = build_engine()
    numbered_read = "".join(f"{n:>6}\t{line}\n" for n, line in
                            enumerate(APP_SOURCE.splitlines(), 1))
    engine.add(ContextItem(id="r1", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                           title="read_file src/app.py", content=numbered_read,
                           source=Source(path="src/app.py"), turn_created=2))
    app = InspectorApp(engine)
    async with app.run_test(size=(80, 30)) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.move_to("r1")
        inspector.focus()
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        editor = app.screen.query_one("#editor-text", TextArea)
        assert editor.text == numbered_read and not editor.show_line_numbers
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ItemEditor), "closed")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ItemPreview), "the preview opened")
        rows = [row for row in screen_text(app).splitlines() if "def compute" in row]
        assert rows and all(row.count(" 5") <= 1 for row in rows), rows
        # An item without its own numbers still gets them in the editor.
        await pilot.press("escape")
        inspector.move_to("f1")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        assert app.screen.query_one("#editor-text", TextArea).show_line_numbers
