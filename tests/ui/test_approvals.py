"""The approval queue pane: snapshots of pending actions and keys that resolve the agent's
futures with the right decision."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from textual.app import ComposeResult
from textual.containers import Vertical

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.diffs import apply_hunks, compute_hunks, unified_diff
from swetui.agent.events import Decision, PendingAction
from swetui.messages import ToolCall
from swetui.ui.screens.batch_review import BatchReview
from swetui.ui.screens.deny_reason import DenyReason
from swetui.ui.screens.item_editor import ItemEditor
from swetui.ui.widgets import ApprovalQueuePane
from tests.ui.panes_app import PanesApp
from tests.ui.waits import until

OLD = "".join(f"line {n}\n" for n in range(1, 31)).replace(
    "line 2\n", "def compute(x):\n    return x\n")
NEW = OLD.replace("    return x\n", "    return x + 1\n").replace("line 28\n", "line 28 changed\n")
WHEN = datetime(2025, 1, 1, tzinfo=UTC)


def edit_action(action_id: str = "act_edit", path: str = "src/app.py", old: str = OLD,
                new: str = NEW, protected: str | None = None) -> PendingAction:
    hunks = compute_hunks(old, new)
    return PendingAction(id=action_id, kind="edit", path=path, cwd="/work/demo",
                         call=ToolCall(id=f"call_{action_id}", name="edit_file",
                                       arguments={"path": path}),
                         diff=unified_diff(old, new, path, hunks), hunks=hunks, old_content=old,
                         new_content=new, protected=protected, created_at=WHEN,
                         summary=f"edit {path}")


def bash_action(action_id: str = "act_bash", command: str = "pytest -q tests/test_app.py"
                ) -> PendingAction:
    return PendingAction(id=action_id, kind="bash", command=command, cwd="/work/demo",
                         call=ToolCall(id=f"call_{action_id}", name="bash",
                                       arguments={"command": command}),
                         timeout=120, created_at=WHEN, summary=f"run: {command}")


def protected_action() -> PendingAction:
    return edit_action("act_env", ".env", "API_URL=http://localhost\n",
                       "API_URL=http://localhost\nDEBUG=1\n", protected="writes a .env file")


class QueueApp(PanesApp):
    """The pane alone, in a right-column-sized box."""

    CSS = "#column { width: 60; }"

    def __init__(self, actions: list[PendingAction], width: int = 60) -> None:
        queue = ApprovalQueue()
        super().__init__(queue.bus)
        self.queue = queue
        self.initial = actions
        self.width = width
        self.futures: dict[str, asyncio.Future[Decision]] = {}
        self.counts: list[int] = []
        self.decided: list[tuple[str, Decision]] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="column"):
            yield ApprovalQueuePane(self.queue, id="approvals")

    def on_mount(self) -> None:
        self.query_one("#column").styles.width = self.width
        for action in self.initial:
            self.futures[action.id] = self.queue.submit(action)
        self.query_one(ApprovalQueuePane).focus()

    def on_approval_queue_pane_count_changed(self, message: ApprovalQueuePane.CountChanged
                                             ) -> None:
        self.counts.append(message.count)

    def on_approval_queue_pane_decided(self, message: ApprovalQueuePane.Decided) -> None:
        self.decided.append((message.action.id, message.decision))


# -- snapshots -------------------------------------------------------------------------------


async def shown(pilot, app: QueueApp) -> None:
    """Wait until the pane lists the app's initial actions, the first one selected."""
    pane = app.query_one(ApprovalQueuePane)
    await until(pilot, lambda: app.counts and app.counts[-1] == len(app.initial)
                and pane.selected_action is not None, "the pending actions are listed")


def test_snapshot_pending_edit_with_diff(snap_compare) -> None:
    async def before(pilot) -> None:
        await shown(pilot, pilot.app)

    assert snap_compare(QueueApp([edit_action(), bash_action()]), terminal_size=(60, 30),
                        run_before=before)


def test_snapshot_bash_command(snap_compare) -> None:
    async def before(pilot) -> None:
        await shown(pilot, pilot.app)
        await pilot.press("down")
        pane = pilot.app.query_one(ApprovalQueuePane)
        await until(pilot, lambda: pane.selected_action.id == "act_bash", "bash is selected")

    assert snap_compare(QueueApp([edit_action(), bash_action()]), terminal_size=(60, 20),
                        run_before=before)


def test_snapshot_protected_action(snap_compare) -> None:
    async def before(pilot) -> None:
        await shown(pilot, pilot.app)

    assert snap_compare(QueueApp([protected_action()]), terminal_size=(60, 20),
                        run_before=before)


def test_snapshot_rejected_hunk(snap_compare) -> None:
    async def before(pilot) -> None:
        await shown(pilot, pilot.app)
        await pilot.press("space", "]")
        diff = pilot.app.query_one(ApprovalQueuePane).preview.diff
        await until(pilot, lambda: diff.rejected == {0} and diff.current == 1,
                    "the first hunk is rejected and the second one current")

    assert snap_compare(QueueApp([edit_action()]), terminal_size=(60, 30), run_before=before)


def test_snapshot_empty(snap_compare) -> None:
    async def before(pilot) -> None:
        await until(pilot, lambda: pilot.app.counts == [0], "the empty queue is counted")

    assert snap_compare(QueueApp([]), terminal_size=(40, 10), run_before=before)


def test_snapshot_batch_review(snap_compare) -> None:
    async def before(pilot) -> None:
        await shown(pilot, pilot.app)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(pilot.app.screen, BatchReview),
                    "the review opened")

    assert snap_compare(QueueApp([edit_action(), bash_action(), protected_action()]),
                        terminal_size=(80, 40), run_before=before)


# -- keys ------------------------------------------------------------------------------------


async def test_approve_resolves_future_and_posts_decided() -> None:
    app = QueueApp([edit_action(), bash_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("y")
        await until(pilot, lambda: app.futures["act_edit"].done() and app.decided,
                    "the edit was decided")
        decision = app.futures["act_edit"].result()
        assert decision.approved and decision.hunks is None and decision.remember == "once"
        assert not app.futures["act_bash"].done()
        assert app.decided == [("act_edit", decision)]
        assert app.counts[-1] == 1
        assert app.query_one(ApprovalQueuePane).selected_action.id == "act_bash"


async def test_deny_with_reason_reaches_the_decision() -> None:
    app = QueueApp([bash_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, DenyReason), "the reason is asked")
        await pilot.press(*"use make test", "enter")
        await until(pilot, lambda: app.futures["act_bash"].done() and app.counts[-1] == 0,
                    "the command was denied")
        decision = app.futures["act_bash"].result()
        assert not decision.approved and decision.reason == "use make test"
        assert app.counts[-1] == 0


async def test_escape_in_deny_leaves_action_pending() -> None:
    app = QueueApp([bash_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, DenyReason), "the reason is asked")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DenyReason), "the dialog closed")
        assert not app.futures["act_bash"].done()
        assert app.queue.pending()[0].id == "act_bash"


async def test_approve_all() -> None:
    app = QueueApp([edit_action(), bash_action(), protected_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("A")
        await until(pilot, lambda: all(future.done() for future in app.futures.values())
                    and app.counts[-1] == 0, "every action was decided")
        assert all(future.result().approved for future in app.futures.values())
        assert len(app.decided) == 3 and app.counts[-1] == 0
        assert "No pending actions" in str(
            app.query_one("#preview-empty").render())


async def test_rejecting_a_hunk_approves_only_the_rest() -> None:
    action = edit_action()
    assert len(action.hunks) == 2
    app = QueueApp([action])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("]", "space", "y")  # reject the second hunk
        await until(pilot, lambda: app.futures["act_edit"].done(), "the edit was decided")
        decision = app.futures["act_edit"].result()
        assert decision.approved and decision.hunks == [0]
        applied = apply_hunks(OLD, NEW, decision.hunks)
        assert "return x + 1" in applied and "line 28 changed" not in applied


async def test_remember_for_session_and_workspace() -> None:
    app = QueueApp([bash_action("a1"), bash_action("a2", "ls")])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("s")
        await until(pilot, lambda: app.futures["a1"].done(), "the first was decided")
        await pilot.press("w")
        await until(pilot, lambda: app.futures["a2"].done(), "the second was decided")
        assert app.futures["a1"].result().remember == "session"
        assert app.futures["a2"].result().remember == "workspace"


async def test_edit_before_approving_sends_edited_command() -> None:
    app = QueueApp([bash_action()])
    async with app.run_test(size=(80, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        app.screen.query_one("TextArea").text = "pytest -q -x"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.futures["act_bash"].done(), "the command was decided")
        decision = app.futures["act_bash"].result()
        assert decision.approved and decision.edited == "pytest -q -x"


async def test_edit_before_approving_an_mcp_call_sends_edited_arguments() -> None:
    call = ToolCall(id="c_mcp", name="mcp__github__create_issue",
                    arguments={"title": "Bug", "labels": ["x"]})
    action = PendingAction(id="act_mcp", call=call, kind="mcp", cwd="/w",
                           command=f"{call.name} {{}}", summary="call mcp__github__create_issue")
    app = QueueApp([action])
    async with app.run_test(size=(80, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        area = app.screen.query_one("TextArea")
        assert '"title": "Bug"' in area.text  # the model's arguments, as JSON to edit
        area.text = '{"title": "Bug", '
        await pilot.press("ctrl+s")
        # Not JSON: nothing is approved, the call stays in the queue.
        await until(pilot, lambda: not isinstance(app.screen, ItemEditor), "the editor closed")
        assert not app.futures["act_mcp"].done() and app.queue.pending() == [action]
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), "the editor opened")
        app.screen.query_one("TextArea").text = '{"title": "Bug report"}'
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.futures["act_mcp"].done(), "the call was decided")
        decision = app.futures["act_mcp"].result()
        assert decision.approved and decision.edited == '{"title": "Bug report"}'


async def test_batch_review_decides_each() -> None:
    app = QueueApp([edit_action(), bash_action(), protected_action()])
    async with app.run_test(size=(100, 40)) as pilot:
        await shown(pilot, app)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BatchReview), "the review opened")
        # edit: approve (default), bash: toggle to deny, protected: defaults to deny
        await pilot.press("down", "space", "enter")
        await until(pilot, lambda: all(future.done() for future in app.futures.values())
                    and app.counts[-1] == 0, "every action was decided")
        assert app.futures["act_edit"].result().approved
        assert not app.futures["act_bash"].result().approved
        assert not app.futures["act_env"].result().approved
        assert app.counts[-1] == 0


async def test_new_actions_arrive_and_count_badge_updates() -> None:
    app = QueueApp([])
    async with app.run_test(size=(60, 30)) as pilot:
        await until(pilot, lambda: app.counts == [0], "the empty queue was counted")
        app.futures["late"] = app.queue.submit(bash_action("late", "make"))
        pane = app.query_one(ApprovalQueuePane)
        await until(pilot, lambda: app.counts[-1] == 1 and pane.selected_action is not None,
                    "the new action arrived")
        assert pane.selected_action.id == "late"
        app.queue.discard("late")
        await until(pilot, lambda: app.counts[-1] == 0 and pane.selected_action is None,
                    "the discarded action left")
