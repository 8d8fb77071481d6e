"""Compaction as the session drives it: manual, automatic at the threshold, undo."""

from __future__ import annotations

from swetui.agent.session import AgentSession
from swetui.agent.turn_events import CompactionNotice
from swetui.engine.events import CompactionFinished
from swetui.options import LaunchOptions
from swetui.providers.events import Usage
from tests.trusted import trust_workspace

from .scripted import ScriptedProvider, answer, calls


def script(turns: int) -> list:
    out = []
    for turn in range(turns):
        out.append(calls((f"c{turn}", "read_file", {"path": "big.py"})))
        out.append(answer(f"Read big.py for turn {turn}."))
    return out


async def run_turns(session: AgentSession, turns: int) -> None:
    for turn in range(turns):
        finished = await session.send(f"look at big.py again ({turn})")
        assert finished.error is None, finished.error


async def twelve_turns_on_a_big_file(workspace) -> AgentSession:
    """A session long enough to compact: twelve turns, each reading a 600-line file."""
    (workspace / "big.py").write_text("".join(f"def function_{n}():\n    return {n}\n"
                                              for n in range(300)))
    session = AgentSession.open(LaunchOptions(path=workspace), env={},
                                provider=ScriptedProvider(*script(12)))
    await run_turns(session, 12)
    return session


async def test_manual_compaction_folds_and_undo_restores_the_request(workspace):
    session = await twelve_turns_on_a_big_file(workspace)
    before = session.engine.assemble().request.canonical_json()
    preview = session.preview_compaction()
    assert preview.folds and preview.tokens_after < preview.tokens_before
    assert session.engine.assemble().request.canonical_json() == before  # preview changes nothing
    finished = await session.compact("manual")
    assert isinstance(finished, CompactionFinished)
    assert session.engine.budget().total == finished.tokens_after < finished.tokens_before
    assert "undone" in session.undo_compaction()
    assert session.engine.assemble().request.canonical_json() == before


async def test_automatic_compaction_when_the_request_passes_the_threshold(workspace, tmp_path):
    (workspace / "big.py").write_text("".join(f"def function_{n}():\n    return {n}\n"
                                              for n in range(400)))
    (workspace / ".swetui").mkdir()
    (workspace / ".swetui" / "config.toml").write_text(
        "context_limit = 30000\ncompaction_threshold = 0.5\nreserve_tokens = 2000\n")
    trust_workspace(workspace)
    # A server that reports no usage: the threshold is measured on swetui's estimate (the
    # scripted model's constant 1,000 tokens would otherwise calibrate it).
    unmeasured = [[e for e in step if not isinstance(e, Usage)] for step in script(14)]
    session = AgentSession.open(LaunchOptions(path=workspace), env={},
                                provider=ScriptedProvider(*unmeasured))
    notices = []
    session.bus.subscribe(notices.append, CompactionNotice)
    await run_turns(session, 14)
    assert notices, "no automatic compaction happened"
    assert not session.engine.budget().needs_compaction
    assert session.stats()["compactions"] >= 1


async def test_compaction_that_would_not_save_tokens_is_not_applied(workspace):
    from swetui.engine.events import EngineNotice

    (workspace / "tiny.py").write_text("x = 1\n")
    turns = [calls(("c0", "read_file", {"path": "tiny.py"})), answer("ok")] * 7
    session = AgentSession.open(LaunchOptions(path=workspace), env={},
                                provider=ScriptedProvider(*turns))
    for turn in range(7):
        await session.send(f"read tiny.py ({turn})")
    notices = []
    session.bus.subscribe(notices.append, EngineNotice)
    before = session.engine.assemble().request.canonical_json()
    assert await session.compact("manual") is None
    assert session.engine.assemble().request.canonical_json() == before
    assert "Nothing to compact" in notices[-1].message


async def test_undo_compaction_after_resume(workspace):
    session = await twelve_turns_on_a_big_file(workspace)
    before = session.engine.assemble().request.canonical_json()
    assert await session.compact("manual") is not None
    reopened = AgentSession.open(LaunchOptions(path=workspace, resume=session.session_id),
                                 env={}, provider=ScriptedProvider())
    assert reopened.stats()["compactions"] == 1
    assert "undone" in reopened.undo_compaction()
    assert reopened.engine.assemble().request.canonical_json() == before
    assert reopened.stats()["compactions"] == 0
    assert "Nothing to undo" in reopened.undo_compaction()
