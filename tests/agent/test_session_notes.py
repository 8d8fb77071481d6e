"""Session notes persist and merge: a new or resumed session keeps the goals, decisions,
files modified and open issues of earlier ones; what a person wrote in the file survives
every update; decisions come from you (a rule you state, a denial with a reason) and from
the model's `Decision:` lines; a file swetui cannot read whole is left alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.notes_file import SECTIONS, Change, NotesDocument, apply, parse, render
from swetui.agent.session import AgentSession
from swetui.engine.events import EngineNotice
from swetui.options import LaunchOptions
from tests.agent.scripted import ScriptedProvider, answer, calls
from tests.trusted import trust_workspace
from tests.waiting import eventually


def open_session(workspace: Path, *scripts: list, resume: bool = False) -> AgentSession:
    return AgentSession.open(LaunchOptions(path=workspace, watch=False,
                                           continue_last=resume),
                             env={}, provider=ScriptedProvider(*scripts))


def notes_of(workspace: Path) -> str:
    return (workspace / ".swetui" / "memory" / "session_notes.md").read_text()


def section(text: str, title: str) -> list[str]:
    return parse(text).entries(title)


async def test_a_new_session_keeps_what_earlier_sessions_and_you_wrote(workspace):
    (workspace / ".swetui").mkdir()
    (workspace / ".swetui" / "config.toml").write_text('mode = "auto-edit"\n')
    trust_workspace(workspace)
    first = open_session(workspace, calls(("e", "edit_file", {
        "path": "src/app.py", "old": "hello", "new": "hi"})), answer("Changed the greeting."))
    await first.send("make the greeting shorter")
    await first.aclose()
    written = notes_of(workspace)
    assert section(written, "Goals") == ["make the greeting shorter"]
    assert section(written, "Files modified") == ["src/app.py"]
    # someone adds a line by hand between sessions
    notes = workspace / ".swetui" / "memory" / "session_notes.md"
    notes.write_text(written.replace("## Open issues", "## Open issues\n- the CI is flaky")
                     + "\n## Code patterns\nAll greetings go through greet().\n")

    second = open_session(workspace, answer("Looked at it."))
    await second.send("now document the README")
    request = second.provider.requests[0]
    sent = request.system + "".join(message.content for message in request.messages) + \
        request.context
    assert "make the greeting shorter" in sent and "src/app.py" in sent  # loaded at start
    await second.aclose()
    merged = notes_of(workspace)
    assert section(merged, "Goals") == ["make the greeting shorter", "now document the README"]
    assert section(merged, "Current task") == ["now document the README"]
    assert section(merged, "Files modified") == ["src/app.py"]
    assert section(merged, "Open issues") == ["the CI is flaky"]
    assert "## Code patterns\nAll greetings go through greet()." in merged


async def test_a_resumed_session_keeps_its_goal_and_an_edit_made_by_hand_stays(workspace):
    session = open_session(workspace, answer("one"), answer("two"))
    await session.send("port the parser to the new API")
    await session.aclose()
    resumed = open_session(workspace, answer("three"), answer("four"), resume=True)
    await resumed.send("also the tests")
    notes = workspace / ".swetui" / "memory" / "session_notes.md"
    assert section(notes.read_text(), "Goals") == ["port the parser to the new API"]
    # while the session is open, the user removes the current task and adds a goal
    edited = notes.read_text().replace("- also the tests", "").replace(
        "- port the parser to the new API", "- port the parser to the new API\n- ship 2.0")
    notes.write_text(edited)
    await resumed.send("and the changelog")
    text = notes.read_text()
    assert section(text, "Goals") == ["port the parser to the new API", "ship 2.0"]
    assert section(text, "Current task") == ["and the changelog"]
    assert resumed.engine.get("notes").content == text  # what the model sees next
    await resumed.aclose()


async def test_decisions_come_from_you_and_from_the_model(workspace):
    (workspace / "migrations").mkdir()
    session = open_session(
        workspace,
        answer("Done.\n\nDecision: keep the v1 endpoints until 2.0\n"),
        calls(("w", "write_file", {"path": "notes.txt", "content": "x"})),
        answer("Understood."))
    await session.send("Tidy the API. Never touch the migrations folder.")
    turn = asyncio.create_task(session.send("write a notes file"))
    await eventually(lambda: session.queue.pending(), "the write waits for approval")
    session.queue.deny(session.queue.pending()[0].id, "no scratch files in the repo")
    await turn
    decisions = section(notes_of(workspace), "Decisions")
    assert decisions[0] == "You: Never touch the migrations folder."
    assert decisions[1] == "keep the v1 endpoints until 2.0"
    assert decisions[2].startswith("You denied ") and "notes.txt" in decisions[2]
    assert decisions[2].endswith(": no scratch files in the repo")
    assert len(decisions) == 3
    await session.aclose()


async def test_a_failed_edit_is_an_open_issue_until_the_file_is_written(workspace):
    (workspace / ".swetui").mkdir()
    (workspace / ".swetui" / "config.toml").write_text('mode = "auto-edit"\n')
    trust_workspace(workspace)
    session = open_session(
        workspace, calls(("a", "edit_file", {"path": "src/app.py", "old": "nope", "new": "x"})),
        answer("That text is not there."),
        calls(("b", "edit_file", {"path": "src/app.py", "old": "hello", "new": "hi"})),
        answer("Fixed."))
    await session.send("fix the greeting")
    issues = section(notes_of(workspace), "Open issues")
    assert len(issues) == 1 and issues[0].startswith("`src/app.py`: edit_file")
    await session.send("try again")
    assert section(notes_of(workspace), "Open issues") == []
    await session.aclose()


@pytest.mark.parametrize("kind", ["binary", "link"])
async def test_a_notes_file_swetui_cannot_read_whole_is_left_alone(workspace, kind):
    notes = workspace / ".swetui" / "memory" / "session_notes.md"
    notes.parent.mkdir(parents=True)
    garbage = b"# Session notes\n\x00\x01binary\xff" * 10
    if kind == "binary":
        notes.write_bytes(garbage)
    else:  # a link to a file outside the workspace: never written through, never replaced
        outside = workspace.parent / "elsewhere.md"
        outside.write_bytes(garbage)
        notes.symlink_to(outside)
    session = open_session(workspace, answer("one"))
    seen: list[EngineNotice] = []
    session.bus.subscribe(seen.append, EngineNotice)
    await session.send("hello")
    assert notes.read_bytes() == garbage and notes.is_symlink() == (kind == "link")
    assert sum("session notes not updated" in notice.message for notice in seen) == 1
    await session.aclose()


# -- the file's laws -------------------------------------------------------------------------

line_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")),
                    min_size=1, max_size=30).map(lambda text: " ".join(text.split())).filter(
    lambda text: bool(text) and text != "(none yet)")
titles = st.sampled_from([*SECTIONS, "Code patterns", "Links"])


@st.composite
def documents(draw: st.DrawFn) -> NotesDocument:
    document = NotesDocument.new()
    for title in draw(st.lists(titles, max_size=4, unique=True)):
        document.sections.setdefault(title, []).extend(
            f"- {value}" for value in draw(st.lists(line_text, max_size=4)))
    return document


additions = st.builds(Change, st.just("add"),
                      st.sampled_from([title for title in SECTIONS if title != "Current task"]
                                      + ["Code patterns"]), line_text)


@given(documents())
def test_a_notes_file_reads_back_as_it_was_written(document):
    assert parse(render(document)) == document


@given(documents(), st.lists(additions, max_size=5))
def test_a_session_only_adds_to_what_the_file_holds(document, made):
    """Whatever the file holds (by hand or from other sessions), a session's additions keep
    every line of it, in order, and append what is new."""
    after = parse(render(apply(parse(render(document)), made)))
    for title, lines in document.sections.items():
        added = [f"- {change.value}" for change in made if change.section == title]
        expected = list(lines)
        for line in added:
            if line not in expected:
                expected.append(line)
        assert after.sections[title] == expected
