"""The full-screen app with a workspace that ships settings: the user is told what they
would change, nothing of it applies until they press t, and /trust asks again."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from swetui.trust import trust_state
from swetui.ui.palette import WorkspaceCommands
from swetui.ui.screens.main import WorkspaceScreen
from swetui.ui.screens.trust_review import TrustReview
from swetui.ui.widgets.transcript_entries import NoticeLine
from tests.ui.waits import submit, until

SHIPPED = ('mode = "auto"\ncontext_limit = 64000\n\n[[approval_rules]]\naction = "allow"\n'
           'kind = "command"\npattern = "rm"\n')


def ship(root: Path, text: str = SHIPPED) -> None:
    (root / ".swetui").mkdir(exist_ok=True)
    (root / ".swetui" / "config.toml").write_text(text)


def workspace_screen(app: App) -> WorkspaceScreen:
    return next(screen for screen in app.screen_stack if isinstance(screen, WorkspaceScreen))


def notices(app: App) -> str:
    return " ".join(str(line.render())
                    for line in workspace_screen(app).transcript.query(NoticeLine))


def allows_rm(app: App) -> bool:
    rules = app.session.toolbox.rules.workspace.list()  # type: ignore[attr-defined]
    return any(rule.action == "allow" and rule.pattern == "rm" for rule in rules)


async def test_untrusted_settings_are_shown_and_applied_only_on_t(make_app, workspace) -> None:
    ship(workspace)
    app = make_app(workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustReview), "the trust review")
        shown = str(app.screen.query_one("#trust-effects").render())
        assert "mode = auto" in shown and "allow command rm" in shown
        assert "context_limit = 64000" in shown
        assert "not trusted and was ignored" in notices(app)
        assert app.session.mode == "ask" and not allows_rm(app)
        await pilot.press("t")
        await until(pilot, lambda: app.session.mode == "auto", "mode auto after trust")
        assert not isinstance(app.screen, TrustReview)
        assert workspace_screen(app).header.mode == "auto"
        assert allows_rm(app)
        assert trust_state(workspace).untrusted == ()
        await until(pilot, lambda: "context_limit: from the next start" in notices(app),
                    "the settings that wait for a restart")


async def test_not_now_keeps_the_users_settings_and_trust_asks_again(make_app, workspace) -> None:
    ship(workspace)
    app = make_app(workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustReview), "the trust review")
        await pilot.press("enter")  # the focused button is "not now": enter never trusts
        await until(pilot, lambda: "Not trusted" in notices(app), "the not-now notice")
        assert app.session.mode == "ask" and not allows_rm(app)
        assert trust_state(workspace).untrusted != ()
        await submit(pilot, "/trust")
        await until(pilot, lambda: isinstance(app.screen, TrustReview), "the review again")
        await pilot.press("t")
        await until(pilot, lambda: app.session.mode == "auto", "mode auto after /trust")
        assert allows_rm(app)


async def test_trust_is_in_the_palette_and_says_when_there_is_nothing(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        names = [name for name, _, _ in WorkspaceCommands(app.screen).commands()]
        assert any(name.startswith("/trust") for name in names)
        await submit(pilot, "/trust")
        await until(pilot, lambda: "Nothing to trust" in notices(app), "nothing to trust")
        assert not isinstance(app.screen, TrustReview)


async def test_markup_in_a_shipped_pattern_is_shown_as_text(make_app, workspace) -> None:
    ship(workspace, 'model = "[@click=app.quit]x[/]"\n\n[[approval_rules]]\naction = "allow"\n'
                    'kind = "command"\npattern = "[@click=app.quit]rm[/]"\n')
    app = make_app(workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustReview), "the trust review")
        assert "[@click=app.quit]rm[/]" in str(app.screen.query_one("#trust-effects").render())
        assert "model = [@click=app.quit]x[/]" in notices(app)


async def test_mode_from_the_command_line_outlasts_a_trusted_config(workspace) -> None:
    from swetui.agent.session import AgentSession
    from swetui.options import LaunchOptions
    from swetui.ui.app import SweTuiApp

    ship(workspace)
    options = LaunchOptions(path=workspace, model="offline", mode="auto-edit", watch=False)
    app = SweTuiApp(AgentSession.open(options, env={}), options=options, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustReview), "the trust review")
        await pilot.press("t")
        await until(pilot, lambda: "Mode stays auto-edit" in notices(app), "mode kept")
        assert app.session.mode == "auto-edit" and allows_rm(app)
