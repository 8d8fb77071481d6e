"""The sandbox on screen: running a command unconfined is its own key, marked in the queue,
never part of "approve all"; a system without a sandbox says so in the header."""

from __future__ import annotations

from pathlib import Path

from swetui.options import LaunchOptions
from swetui.ui.widgets import ApprovalQueuePane
from tests.ui.test_approvals import QueueApp, bash_action, edit_action


def offer(action_id: str = "act_offer") -> object:
    return bash_action(action_id, "touch ../outside/made").model_copy(update={
        "sandbox_denied": "touch: cannot touch '../outside/made': Permission denied",
        "protected": "runs outside the sandbox"})


async def test_u_runs_the_selected_command_unconfined() -> None:
    app = QueueApp([bash_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.press("u")
        await pilot.pause()
        decision = app.futures["act_bash"].result()
    assert decision.approved and decision.unconfined


async def test_u_does_nothing_to_an_edit() -> None:
    app = QueueApp([edit_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.press("u")
        await pilot.pause()
        assert not app.futures["act_edit"].done()
        assert app.queue.pending()


async def test_an_offer_is_marked_and_not_approved_in_bulk() -> None:
    app = QueueApp([offer(), bash_action()])
    async with app.run_test(size=(60, 30)) as pilot:
        pane = app.query_one(ApprovalQueuePane)
        assert "unconfined" in str(pane.option_list.get_option_at_index(0).prompt)
        preview = str(pane.preview.query_one("#preview-command").render())
        assert "OUTSIDE the sandbox" in preview and "Permission denied" in preview
        await pilot.press("Y")
        await pilot.pause()
        assert app.futures["act_bash"].result().approved
        assert not app.futures["act_offer"].done()
        await pilot.press("y")
        await pilot.pause()
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
        await app.workers.wait_for_complete()
        await pilot.pause()
        header = app.screen.header
        assert "no sandbox" in str(header.render())
        assert "every command" in header.sandbox_off
