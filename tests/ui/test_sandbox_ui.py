"""The sandbox on screen: running a command unconfined is its own key, marked in the queue,
never part of "approve all"; a system without a sandbox says so in the header."""

from __future__ import annotations

from pathlib import Path

from swetui.options import LaunchOptions
from swetui.ui.widgets import ApprovalQueuePane
from tests.ui.test_approvals import QueueApp, bash_action, edit_action, shown
from tests.ui.waits import until


def offer(action_id: str = "act_offer") -> object:
    return bash_action(action_id, "touch ../outside/made").model_copy(update={
        "sandbox_denied": "touch: cannot touch '../outside/made': Permission denied",
        "protected": "runs outside the sandbox"})


async def test_u_runs_the_selected_command_unconfined() -> None:
    app = QueueApp([bash_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("u")
        await until(pilot, lambda: app.futures["act_bash"].done(), "the command was decided")
        decision = app.futures["act_bash"].result()
    assert decision.approved and decision.unconfined


async def test_u_does_nothing_to_an_edit() -> None:
    app = QueueApp([edit_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        await pilot.press("u")
        # y comes after u: when y has decided the edit, u had its turn and did nothing.
        await pilot.press("y")
        await until(pilot, lambda: app.futures["act_edit"].done(), "y decided the edit")
        decision = app.futures["act_edit"].result()
        assert decision.approved and not decision.unconfined
        assert [action_id for action_id, _ in app.decided] == ["act_edit"]


async def test_an_offer_is_marked_and_not_approved_in_bulk() -> None:
    app = QueueApp([offer(), bash_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await shown(pilot, app)
        pane = app.query_one(ApprovalQueuePane)
        assert "unconfined" in str(pane.option_list.get_option_at_index(0).prompt)
        preview = str(pane.preview.query_one("#preview-command").render())
        assert "OUTSIDE the sandbox" in preview and "Permission denied" in preview
        await pilot.press("Y")
        await until(pilot, lambda: app.futures["act_bash"].done(), "approve-all decided")
        assert app.futures["act_bash"].result().approved
        assert not app.futures["act_offer"].done()
        await pilot.press("y")
        await until(pilot, lambda: app.futures["act_offer"].done(), "y decided the offer")
        assert app.futures["act_offer"].result().approved


async def test_header_says_when_there_is_no_sandbox(demo: Path, isolated_config: Path) -> None:
    from swetui.agent.session import AgentSession
    from swetui.ui.app import SweTuiApp

    config = isolated_config / "swetui"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('sandbox = "off"\n')
    options = LaunchOptions(path=demo, model="offline", watch=False)
    app = SweTuiApp(AgentSession.open(options, env={}), options=options, watch=False)
    async with app.run_test(size=(140, 45)) as pilot:
        header = app.screen.header
        await until(pilot, lambda: "no sandbox" in str(header.render()),
                    "the header says there is no sandbox")
        assert "every command" in header.sandbox_off
