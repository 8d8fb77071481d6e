"""The running summary is kept current after each turn once the history has been layered
(not only at a compaction), and a grep that finds nothing is never sent."""

from __future__ import annotations

from swetui.agent.session import AgentSession
from swetui.engine.compaction.current import running_summary
from swetui.options import LaunchOptions

from .scripted import ScriptedProvider, answer, calls
from .test_session_compaction import run_turns, script


def sent_text(session: AgentSession, index: int = -1) -> str:
    request = session.provider.requests[index]
    return "\n".join([request.system, *(message.content for message in request.messages),
                      request.context])


async def test_after_a_compaction_every_turn_brings_the_running_summary_up_to_date(workspace):
    (workspace / "big.py").write_text("".join(f"def function_{n}():\n    return {n}\n"
                                              for n in range(300)))
    later = [calls(("m", "read_file", {"path": "missing_module.py"})),
             answer("There is no missing_module.py; next I will look at big.py."),
             answer("Done with the second look."), answer("ok")]
    session = AgentSession.open(LaunchOptions(path=workspace, watch=False), env={},
                                provider=ScriptedProvider(*script(12), *later))
    await run_turns(session, 12)
    assert running_summary(session.engine) is None  # no layered history yet: nothing to keep
    await session.compact("manual")
    summary = running_summary(session.engine)
    assert summary is not None and "Now (" not in summary.content
    folded_until = summary.payload.facts.last_turn

    await session.send("find missing_module.py please (turn 13)")
    current = running_summary(session.engine)
    assert current is not None and current.id == summary.id
    assert f"Now (turns {folded_until + 1}–13, in full below)" in current.content
    assert "Latest request: find missing_module.py please (turn 13)" in current.content
    assert "missing_module.py" in current.content.split("Last error since:")[1]
    assert "Last answer: There is no missing_module.py" in current.content
    assert session.engine.counter.count(current.content) <= 300

    await session.send("have another look (turn 14)")
    current = running_summary(session.engine)
    assert "Latest request: have another look (turn 14)" in current.content
    await session.send("and now? (turn 15)")
    assert "Latest request: have another look (turn 14)" in sent_text(session)  # it is sent
    await session.aclose()


async def test_the_summary_you_edited_is_left_as_you_wrote_it(workspace):
    (workspace / "big.py").write_text("".join(f"def f_{n}():\n    return {n}\n"
                                              for n in range(300)))
    session = AgentSession.open(LaunchOptions(path=workspace, watch=False), env={},
                                provider=ScriptedProvider(*script(12), answer("fine")))
    await run_turns(session, 12)
    await session.compact("manual")
    summary = running_summary(session.engine)
    assert summary is not None
    session.engine.edit(summary.id, "My own summary.")
    await session.send("go on")
    assert running_summary(session.engine).content == "My own summary."
    await session.aclose()


async def test_a_grep_that_finds_nothing_is_not_sent(workspace):
    session = AgentSession.open(LaunchOptions(path=workspace, watch=False), env={},
                                provider=ScriptedProvider(answer("none"), answer("still none")))
    await session.send('where is "NoSuchSymbolAnywhere" used?')
    await session.send('and "greet"?')
    first, second = session.provider.requests
    assert "NoSuchSymbolAnywhere" not in first.system
    for request in (first, second):
        blocks = [message.content for message in request.messages if "<context" in
                  message.content]
        assert not any("NoSuchSymbolAnywhere" in block.split("</context>")[0].split(">", 1)[0]
                       for block in blocks)
    assert "greet" in "".join(message.content for message in second.messages)
    await session.aclose()


async def test_a_resumed_session_shows_the_running_summary_as_it_was_last_brought_up_to_date(
        workspace):
    (workspace / "big.py").write_text("".join(f"def function_{n}():\n    return {n}\n"
                                              for n in range(300)))
    later = [answer("Looked again; next I will read big.py.")]
    session = AgentSession.open(LaunchOptions(path=workspace, watch=False), env={},
                                provider=ScriptedProvider(*script(12), *later))
    await run_turns(session, 12)
    await session.compact("manual")
    await session.send("have another look (turn 13)")
    current = running_summary(session.engine)
    assert current is not None and "Latest request: have another look" in current.content
    await session.aclose()

    reopened = AgentSession.open(LaunchOptions(path=workspace, watch=False,
                                               resume=session.session_id),
                                 env={}, provider=ScriptedProvider())
    resumed = running_summary(reopened.engine)
    assert resumed is not None and resumed.content == current.content
    assert "Latest request: have another look (turn 13)" in (
        reopened.engine.assemble().request.canonical_json())
    await reopened.aclose()
