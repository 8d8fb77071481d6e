"""Driving the whole app with keys: a real offline session answers, approvals reach the agent,
esc interrupts, the draft counts in the gauge, bad input is answered in place."""

from __future__ import annotations

from pathlib import Path

from textual import events

from swetui.ui.screens.main import WorkspaceScreen
from swetui.ui.widgets.prompt import MAX_PROMPT_CHARS
from swetui.ui.widgets.transcript_answer import AnswerBlock
from swetui.ui.widgets.transcript_entries import (
    ActionEntry,
    CompletionLine,
    ErrorLine,
    NoticeLine,
    UserMessage,
)
from tests.ui.conftest import publish_mid_stream, submit, wait_idle


def _texts(screen: WorkspaceScreen, kind: type) -> list[str]:
    return [str(widget.render()) for widget in screen.transcript.query(kind)]


async def test_prompt_reaches_session_and_answer_renders(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "read README.md")
        await wait_idle(app, pilot)
        screen = app.screen
        assert _texts(screen, UserMessage) == ["read README.md"]
        actions = list(screen.transcript.query(ActionEntry))
        assert [action.tool for action in actions] == ["read_file"]
        answer = screen.transcript.query_one(AnswerBlock)
        assert "A demo project for swetui." in answer.source
        completion = screen.transcript.query_one(CompletionLine)
        assert "Done" in str(completion.render())
        assert screen.prompt.input.text == ""


async def test_action_line_expands_to_full_output(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        publish_mid_stream(app)
        await pilot.pause()
        action = app.screen.transcript.query(ActionEntry).last()
        assert not action.expanded
        await pilot.click(action)
        assert action.expanded
        assert "A demo project" in str(action._detail.render())
        action.focus()
        await pilot.press("enter")
        assert not action.expanded


async def test_approve_edit_with_keys_changes_the_file(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, 'replace "hello" with "world" in a.txt')
        for _ in range(100):
            await pilot.pause(0.02)
            if app.session.queue.pending():
                break
        assert app.screen.header.pending == 1
        await pilot.press("f5")
        assert not app.screen.header.show_badge
        await pilot.press("y")
        await wait_idle(app, pilot)
        assert (demo / "a.txt").read_text() == "world there\n"
        notices = " ".join(_texts(app.screen, NoticeLine))
        assert "Approved edit a.txt" in notices


async def test_esc_interrupts_the_turn(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, 'replace "hello" with "world" in a.txt')
        for _ in range(100):
            await pilot.pause(0.02)
            if app.session.queue.pending():
                break
        assert app.session.busy
        await pilot.press("escape")
        await wait_idle(app, pilot)
        assert not app.session.busy
        completion = app.screen.transcript.query(CompletionLine).last()
        assert completion.has_class("-interrupted")
        assert (demo / "a.txt").read_text() == "hello there\n"
        assert app.screen.header.pending == 0


async def test_slash_commands_answer_in_place(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "/mode auto-edit")
        await pilot.pause(0.1)
        assert app.session.mode == "auto-edit"
        assert app.screen.header.mode == "auto-edit"
        await submit(pilot, "/frobnicate")
        await pilot.pause(0.1)
        errors = _texts(app.screen, ErrorLine)
        assert any("Unknown command /frobnicate" in error for error in errors)
        await submit(pilot, "/mode sideways")
        await pilot.pause(0.1)
        assert any("unknown mode" in error for error in _texts(app.screen, ErrorLine))
        for command in ("/help", "/context", "/stats", "/notes", "/undo"):
            await submit(pilot, command)
            await pilot.pause(0.1)
        assert len(_texts(app.screen, ErrorLine)) == 2
        await submit(pilot, "/clear")
        await pilot.pause(0.1)
        assert not list(app.screen.transcript.query(ErrorLine)), _texts(app.screen, ErrorLine)


async def test_slash_completion_with_tab(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press(*"/st")
        menu = app.screen.prompt.menu
        assert menu.showing
        assert [item.value for item in menu.completions] == ["stats "]
        await pilot.press("tab")
        assert app.screen.prompt.input.text == "/stats "
        await pilot.press(*"/mode a")
        assert app.screen.prompt.input.text == "/stats /mode a"  # not at line start


async def test_at_path_adds_files_and_refuses_bad_ones(make_app, demo: Path,
                                                       tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret")
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause(0.2)  # the file index for completion
        await pilot.press(*"@src/ap")
        assert [item.value for item in app.screen.prompt.menu.completions] == ["src/app.py "]
        await pilot.press("tab", "enter")
        await pilot.pause()
        assert app.session.engine.by_source("src/app.py")
        assert not app.session.busy  # only a path: nothing sent to the model
        await submit(pilot, "@logo.png @../../outside.txt @missing.txt")
        await pilot.pause()
        errors = " ".join(_texts(app.screen, ErrorLine))
        assert "binary" in errors
        assert "missing.txt" in errors
        assert "outside" in errors
        assert not app.session.engine.by_source("logo.png")


async def test_history_walks_with_up_and_down(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        prompt = app.screen.prompt.input
        for command in ("/mode ask", "/stats"):
            await submit(pilot, command)
            await pilot.pause(0.05)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.text == "/stats"
        await pilot.press("up")
        assert prompt.text == "/mode ask"
        await pilot.press("down", "down")
        assert prompt.text == "draft"


async def test_newline_key_and_enter_sends(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press(*"/stats", "ctrl+j")
        assert app.screen.prompt.input.text == "/stats\n"


async def test_draft_counts_in_the_gauge(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        before = app.session.engine.budget().total
        await pilot.press(*"explain")
        await pilot.pause(0.3)
        assert app.session.engine.budget().total > before


async def test_huge_paste_is_refused_with_a_message(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        prompt = app.screen.prompt.input
        prompt.post_message(events.Paste("x" * 5_000_000))
        await pilot.pause(0.1)
        assert prompt.text == ""
        assert any("refused" in note.message for note in app._notifications)
        prompt.post_message(events.Paste("short paste"))
        await pilot.pause(0.1)
        assert prompt.text == "short paste"
        assert MAX_PROMPT_CHARS < 5_000_000


async def test_pane_keys_and_sidebar(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        screen = app.screen
        for key, pane in (("f2", "transcript"), ("f3", "gauge"), ("f4", "inspector"),
                          ("f5", "approvals"), ("f6", "prompt-input")):
            await pilot.press(key)
            assert screen._within(screen.focused, screen.query_one(f"#{pane}")), key
        await pilot.press("f7")
        assert screen.query_one("#sidebar").has_class("-hidden")
        await pilot.press("f4")
        assert not screen.query_one("#sidebar").has_class("-hidden")
        assert screen._within(screen.focused, screen.inspector)


async def test_resizing_to_40x10_shows_a_hint_and_recovers(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        assert app.screen.has_class("-too-small")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not app.screen.has_class("-too-small")
        await pilot.press("h", "i")  # typing goes to the prompt again, as before
        assert app.screen.prompt.input.text == "hi"


async def test_rules_are_listed_and_removed_from_the_prompt(make_app) -> None:
    from swetui.config import ApprovalRule

    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        book = app.session.toolbox.rules
        book.session.add(ApprovalRule(action="allow", kind="command", pattern="pytest"))
        book.workspace.add(ApprovalRule(action="deny", kind="path", pattern="secrets/**"))
        await submit(pilot, "/rules")
        await pilot.pause(0.1)
        assert [scope for scope, _ in app.session.rules()] == ["session", "workspace"]
        await submit(pilot, "/rules remove 2")
        await pilot.pause(0.1)
        notices = " ".join(_texts(app.screen, NoticeLine))
        assert "Removed workspace rule: deny path 'secrets/**'" in notices
        assert [rule.pattern for _, rule in app.session.rules()] == ["pytest"]
        config = app.session.workspace.paths.config_file
        assert "secrets" not in config.read_text()
        await submit(pilot, "/rules remove 9")
        await pilot.pause(0.1)
        assert any("no rule 9" in error for error in _texts(app.screen, ErrorLine))
