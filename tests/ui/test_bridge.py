"""The UI's one way in: a single bus subscription (the `EventBridge`), events in the order
published, and panes that ask the screen for modals instead of pushing screens themselves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from textual import on
from textual.app import App, ComposeResult
from textual.message import Message

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.events import ApprovalRequested
from swetui.agent.turn_events import AnswerChunk, ToolCallStarted, TurnFinished, TurnStarted
from swetui.engine.bus import EventBus
from swetui.engine.events import EngineNotice
from swetui.ui.bridge import SessionEvent, StreamText
from swetui.ui.widgets import ApprovalQueuePane, BudgetGauge, ContextInspector
from swetui.ui.widgets.modal_requests import (
    ApprovalEditRequested,
    BatchReviewRequested,
    DenyReasonRequested,
    ItemEditRequested,
    ItemPreviewRequested,
    ModalRequest,
    RequestViewRequested,
)
from tests.ui.test_approvals import bash_action, edit_action
from tests.ui.test_inspector import build_engine
from tests.ui.waits import until


class CountingBus(EventBus):
    """A real bus that remembers who subscribed."""

    def __init__(self) -> None:
        super().__init__()
        self.subscribed: list[Callable[[BaseModel], Any]] = []

    def subscribe(self, listener: Callable[[BaseModel], Any],
                  kind: type[BaseModel] | None = None) -> Callable[[], None]:
        self.subscribed.append(listener)
        return super().subscribe(listener, kind)


async def test_the_workspace_subscribes_to_the_bus_once(make_app) -> None:
    app = make_app()
    bus = app.session.bus
    added: list[object] = []
    original = bus.subscribe

    def subscribe(listener: Callable[[BaseModel], Any],
                  kind: type[BaseModel] | None = None) -> Callable[[], None]:
        added.append(listener)
        return original(listener, kind)

    bus.subscribe = subscribe  # type: ignore[method-assign]
    async with app.run_test(size=(120, 30)) as pilot:
        screen: Any = app.screen
        await until(pilot, lambda: screen.gauge.budget == app.session.engine.budget(),
                    "the gauge shows the session's budget")
        # The gauge, the inspector and the queue follow the bus too, but through the
        # screen: only the bridge listens.
        app.session.engine.drop(next(iter(app.session.engine)).id)
        await until(pilot, lambda: screen.gauge.budget == app.session.engine.budget(),
                    "the gauge followed a change")
        assert added == [screen.bridge.on_event]


async def test_panes_alone_never_subscribe() -> None:
    engine = build_engine()
    bus = CountingBus()
    engine.bus = bus

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield BudgetGauge(engine)
            yield ContextInspector(engine)
            yield ApprovalQueuePane(ApprovalQueue(bus))

    app = Bare()
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        assert bus.subscribed == []


async def test_events_reach_the_screen_in_the_order_published(make_app) -> None:
    app = make_app()
    seen: list[Message] = []

    def hook(message: Message) -> None:
        # (a message that bubbles on from the screen to the app is counted once)
        if isinstance(message, SessionEvent | StreamText) and \
                not any(message is other for other in seen):
            seen.append(message)

    async with app.run_test(size=(120, 30), message_hook=hook) as pilot:
        bus = app.session.bus
        action = bash_action("act_order", "ls")
        published: list[BaseModel] = [
            TurnStarted(turn=1, text="go"),
            AnswerChunk(turn=1, text="one "),
            AnswerChunk(turn=1, text="two"),
            ToolCallStarted(turn=1, call_id="c1", name="bash", arguments={"command": "ls"}),
            EngineNotice(message="a note"),
            AnswerChunk(turn=1, text="three"),
            TurnFinished(turn=1, duration=0.1, input_tokens=1, output_tokens=1, answer=""),
        ]

        def publish_all() -> None:  # from another thread, as a worker publishes
            for event in published[:4]:
                bus.publish(event)
            # The queue makes its future on the loop (not awaited: nobody decides here).
            app.call_from_thread(lambda: app.session.queue.submit(action) and None)
            for event in published[4:]:
                bus.publish(event)

        worker = app.run_worker(publish_all, thread=True)
        await worker.wait()
        await until(pilot, lambda: any(isinstance(m, SessionEvent) and
                                       isinstance(m.event, TurnFinished) for m in seen),
                    "the turn's end reached the screen")
        shown = [m.event if isinstance(m, SessionEvent) else ("text", m.text) for m in seen
                 if not isinstance(m, SessionEvent) or not type(m.event).__module__
                 .startswith("swetui.engine.events") or isinstance(m.event, EngineNotice)]
        assert shown == [
            published[0], ("text", "one two"), published[3],
            ApprovalRequested(action=action), published[4], ("text", "three"), published[6]]
        assert app.screen.approvals.actions == [action]  # type: ignore[attr-defined]


async def test_panes_ask_for_modals_and_take_the_answer_back() -> None:
    engine = build_engine()
    queue = ApprovalQueue(engine.bus)
    requests: list[ModalRequest] = []

    class Bare(App[None]):
        """No screen logic at all: whatever opens a modal here is the widget's doing."""

        def compose(self) -> ComposeResult:
            yield ContextInspector(engine, id="inspector")
            yield ApprovalQueuePane(queue, id="approvals")

        @on(ModalRequest)
        def _asked(self, message: ModalRequest) -> None:
            requests.append(message)

    app = Bare()
    async with app.run_test(size=(80, 50)) as pilot:
        first = app.screen
        edit, command = edit_action(), bash_action()
        futures = [queue.submit(edit), queue.submit(command)]
        pane = app.query_one(ApprovalQueuePane)
        pane.sync()
        await until(pilot, lambda: pane.selected_action is not None, "an action is listed")
        pane.focus()
        for key in ("n", "E", "b"):
            await pilot.press(key)
        inspector = app.query_one(ContextInspector)
        inspector.focus()
        inspector.move_to("a1")
        for key in ("e", "v", "w"):
            await pilot.press(key)
        await until(pilot, lambda: len(requests) == 6, "six modals were asked for")
        assert app.screen is first  # no pane pushed a screen
        assert [type(r) for r in requests] == [
            DenyReasonRequested, ApprovalEditRequested, BatchReviewRequested,
            ItemEditRequested, ItemPreviewRequested, RequestViewRequested]
        deny, _, _, item_edit, preview, request_view = requests
        assert isinstance(deny, DenyReasonRequested) and deny.action == edit
        assert isinstance(preview, ItemPreviewRequested) and preview.item.id == "a1"
        assert isinstance(request_view, RequestViewRequested) and request_view.engine is engine
        # The answers go back to the pane and the engine.
        deny.deny("not this file")
        decision = await futures[0]
        assert not decision.approved and decision.reason == "not this file"
        assert isinstance(item_edit, ItemEditRequested)
        item_edit.save("shorter")
        assert engine.get("a1").content == "shorter" and engine.get("a1").edited
        item_edit.revert()
        assert not engine.get("a1").edited
        assert queue.pending() == [command]


def test_control_sequences_reach_the_screen_visible_not_raw() -> None:
    from swetui.agent import ToolCallFinished, ToolCallStarted
    from swetui.ui.bridge import _shown

    started = _shown(ToolCallStarted(turn=1, call_id="c", name="read_file",
                                     arguments={"path": "clip\x1b]52;c;aGk=\x07.txt"}))
    finished = _shown(ToolCallFinished(turn=1, call_id="c", name="bash", summary="\x1b[2J ok",
                                       content="\x1b]0;title\x07out\x9b31m", is_error=False,
                                       path=None))
    shown = f"{started.arguments} {finished.summary} {finished.content}"
    assert not any(char in shown for char in "\x1b\x07\x9b")
    assert "␛]52" in shown and "␛[2J" in shown
