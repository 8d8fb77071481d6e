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
from tests.ui.conftest import publish_mid_stream
from tests.ui.waits import notices, settle, slash, submit, until, wait_idle


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
        await settle(pilot)
        action = app.screen.transcript.query(ActionEntry).last()
        assert not action.expanded
        await pilot.click(action)
        await until(pilot, lambda: action.expanded, "the action line expanded")
        assert "A demo project" in str(action._detail.render())
        action.focus()
        await pilot.press("enter")
        await until(pilot, lambda: not action.expanded, "the action line folded")


async def test_approve_edit_with_keys_changes_the_file(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, 'replace "hello" with "world" in a.txt')
        await until(pilot, lambda: app.screen.header.pending == 1, "the edit is pending")
        await pilot.press("f5")
        await until(pilot, lambda: not app.screen.header.show_badge,
                    "the badge hides while the approvals pane has the focus")
        await pilot.press("y")
        await wait_idle(app, pilot)
        assert (demo / "a.txt").read_text() == "world there\n"
        notices = " ".join(_texts(app.screen, NoticeLine))
        assert "Approved edit a.txt" in notices


async def test_esc_interrupts_the_turn(make_app, demo: Path) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, 'replace "hello" with "world" in a.txt')
        await until(pilot, lambda: app.screen.header.pending == 1, "the edit is pending")
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
        await slash(pilot, "/mode auto-edit")
        assert app.session.mode == "auto-edit"
        assert app.screen.header.mode == "auto-edit"
        await slash(pilot, "/frobnicate")
        errors = _texts(app.screen, ErrorLine)
        assert any("Unknown command /frobnicate" in error for error in errors)
        await slash(pilot, "/mode sideways")
        assert any("unknown mode" in error for error in _texts(app.screen, ErrorLine))
        for command in ("/help", "/context", "/stats", "/notes", "/undo"):
            await slash(pilot, command)
        assert len(_texts(app.screen, ErrorLine)) == 2
        await submit(pilot, "/clear")
        await until(pilot, lambda: not app.screen.transcript.query(ErrorLine),
                    "the transcript was cleared")


async def test_slash_completion_with_tab(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press(*"/st")
        menu = app.screen.prompt.menu
        await until(pilot, lambda: menu.showing and [item.value for item in menu.completions]
                    == ["stats "], "/stats is the only completion")
        await pilot.press("tab")
        prompt = app.screen.prompt.input
        await until(pilot, lambda: prompt.text == "/stats ", "tab completed /stats")
        await pilot.press(*"/mode a")
        # not at line start: the text is typed on, not completed as a command
        await until(pilot, lambda: prompt.text == "/stats /mode a", "typing went on")


async def test_at_path_adds_files_and_refuses_bad_ones(make_app, demo: Path,
                                                       tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret")
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: "src/app.py" in app.screen.completer.files,
                    "the workspace's files are indexed for completion")
        await pilot.press(*"@src/ap")
        await until(pilot, lambda: [item.value for item in app.screen.prompt.menu.completions]
                    == ["src/app.py "], "src/app.py is the only completion")
        await pilot.press("tab", "enter")
        await until(pilot, lambda: app.session.engine.by_source("src/app.py"),
                    "src/app.py is in the context")
        assert not app.session.busy  # only a path: nothing sent to the model
        await submit(pilot, "@logo.png @../../outside.txt @missing.txt")
        await until(pilot, lambda: len(_texts(app.screen, ErrorLine)) == 3,
                    "the three paths were answered")
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
            await slash(pilot, command)
        await pilot.press(*"draft")
        await until(pilot, lambda: prompt.text == "draft", "the draft is typed")
        await pilot.press("up")
        await until(pilot, lambda: prompt.text == "/stats", "up shows the last command")
        await pilot.press("up")
        await until(pilot, lambda: prompt.text == "/mode ask", "up again, the one before")
        await pilot.press("down", "down")
        await until(pilot, lambda: prompt.text == "draft", "down twice, the draft again")


async def test_newline_key_and_enter_sends(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press(*"/stats", "ctrl+j")
        await until(pilot, lambda: app.screen.prompt.input.text == "/stats\n",
                    "ctrl+j put a new line in the prompt")


async def test_draft_counts_in_the_gauge(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        before = app.session.engine.budget().total
        await pilot.press(*"explain")
        # The draft is counted once typing pauses (a debounce), not on every key.
        await until(pilot, lambda: app.session.engine.budget().total > before,
                    "the draft counts in the budget")


async def test_huge_paste_is_refused_with_a_message(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        prompt = app.screen.prompt.input
        prompt.post_message(events.Paste("x" * 5_000_000))
        await until(pilot, lambda: any("refused" in note.message for note in notices(app)),
                    "the paste was refused")
        assert prompt.text == ""
        prompt.post_message(events.Paste("short paste"))
        await until(pilot, lambda: prompt.text == "short paste", "the short paste is in")
        assert MAX_PROMPT_CHARS < 5_000_000


async def test_pane_keys_and_sidebar(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        screen = app.screen
        for key, pane in (("f2", "transcript"), ("f3", "gauge"), ("f4", "inspector"),
                          ("f5", "approvals"), ("f6", "prompt-input")):
            await pilot.press(key)
            await until(pilot, lambda pane=pane: screen._within(
                screen.focused, screen.query_one(f"#{pane}")), f"{key} focused {pane}")
        sidebar = screen.query_one("#sidebar")
        await pilot.press("f7")
        await until(pilot, lambda: sidebar.has_class("-hidden"), "f7 hid the side panes")
        await pilot.press("f4")
        await until(pilot, lambda: not sidebar.has_class("-hidden")
                    and screen._within(screen.focused, screen.inspector),
                    "f4 showed the side panes with the inspector focused")


async def test_resizing_to_40x10_shows_a_hint_and_recovers(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.resize_terminal(40, 10)
        await until(pilot, lambda: app.screen.has_class("-too-small"), "the hint shows")
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: not app.screen.has_class("-too-small")
                    and app.screen.focused is app.screen.prompt.input,
                    "the panes came back with the prompt focused")
        await pilot.press("h", "i")  # typing goes to the prompt again, as before
        await until(pilot, lambda: app.screen.prompt.input.text == "hi",
                    "typing reached the prompt")


async def test_rules_are_listed_and_removed_from_the_prompt(make_app) -> None:
    from swetui.config import ApprovalRule

    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        book = app.session.toolbox.rules
        book.session.add(ApprovalRule(action="allow", kind="command", pattern="pytest"))
        book.workspace.add(ApprovalRule(action="deny", kind="path", pattern="secrets/**"))
        await slash(pilot, "/rules")
        assert [scope for scope, _ in app.session.rules()] == ["session", "workspace"]
        await slash(pilot, "/rules remove 2")
        notices = " ".join(_texts(app.screen, NoticeLine))
        assert "Removed workspace rule: deny path 'secrets/**'" in notices
        assert [rule.pattern for _, rule in app.session.rules()] == ["pytest"]
        config = app.session.workspace.paths.config_file
        assert "secrets" not in config.read_text()
        await slash(pilot, "/rules remove 9")
        assert any("no rule 9" in error for error in _texts(app.screen, ErrorLine))
