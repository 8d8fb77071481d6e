"""Automatic compaction settles: it brings the request under a target below the threshold,
fires again only once the request has grown past the threshold again, and when it cannot get
under, says once what takes the room instead of folding a little on every request."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.session import AgentSession
from swetui.engine.events import CompactionFinished, EngineNotice
from swetui.options import LaunchOptions
from swetui.providers.events import Usage
from tests.trusted import trust_workspace

from .scripted import ScriptedProvider, answer, calls


def configure(workspace: Path, **settings: object) -> None:
    (workspace / ".swetui").mkdir(exist_ok=True)
    (workspace / ".swetui" / "config.toml").write_text(
        "".join(f"{key} = {value!r}\n".replace("'", '"') for key, value in settings.items()))
    trust_workspace(workspace)


def reading_turns(turns: int, path: str) -> list:
    """Turns that read `path`, from a server that reports no usage: the threshold is measured on
    swetui's estimate (the scripted model's constant 1,000 tokens would otherwise calibrate
    the window away)."""
    out = []
    for turn in range(turns):
        out.append(calls((f"c{turn}", "read_file", {"path": path})))
        out.append(answer(f"Read {path} for turn {turn}."))
    return [[event for event in step if not isinstance(event, Usage)] for step in out]


def module(lines: int) -> str:
    return "".join(f"def function_{n}(value):\n    return value + {n}\n" for n in range(lines))


async def test_compaction_gets_under_the_target_and_fires_a_handful_of_times(workspace):
    (workspace / "big.py").write_text(module(150))
    configure(workspace, context_limit=30000, compaction_threshold=0.6, reserve_tokens=2000)
    session = AgentSession.open(LaunchOptions(path=workspace), env={},
                                provider=ScriptedProvider(*reading_turns(30, "big.py")))
    compactions: list[CompactionFinished] = []
    session.bus.subscribe(compactions.append, CompactionFinished)
    for turn in range(30):
        finished = await session.send(f"look at big.py again ({turn})")
        assert finished.error is None, finished.error
    assert compactions, "no automatic compaction happened"
    target = int(30000 * 0.5)
    # each one settles under the target, so the next one waits for the request to grow back
    assert all(event.tokens_after <= target for event in compactions), \
        [(event.tokens_before, event.tokens_after) for event in compactions]
    # each turn reads ~1,800 tokens: from the target back to the threshold takes a few turns
    assert len(compactions) <= 30 // 3, len(compactions)


async def test_when_it_cannot_get_under_it_says_what_takes_the_room_once(workspace):
    (workspace / "big.py").write_text(module(60))
    (workspace / "huge.py").write_text(module(900))
    configure(workspace, context_limit=30000, compaction_threshold=0.4, reserve_tokens=2000)
    session = AgentSession.open(LaunchOptions(path=workspace), env={},
                                provider=ScriptedProvider(*reading_turns(16, "big.py")))
    item = session.add_path("huge.py")
    session.engine.pin(item.id)
    assert session.engine.budget().needs_compaction  # the pinned file alone passes it
    notices: list[EngineNotice] = []
    session.bus.subscribe(notices.append, EngineNotice)
    started: list[CompactionFinished] = []
    session.bus.subscribe(started.append, CompactionFinished)
    for turn in range(16):
        await session.send(f"look at big.py again ({turn})")
    stuck = [notice for notice in notices if "cannot bring the request under" in notice.message]
    assert len(stuck) == 1, [n.message for n in notices]
    assert "unpin" in stuck[0].message and "huge.py" in stuck[0].message
    requests = len(session.provider.requests)
    # it tries again only after the request grew by what a settled compaction frees
    assert session.compaction.fired <= requests // 5, (session.compaction.fired, requests)
    assert session.engine.budget().needs_compaction


def test_a_target_at_or_over_the_threshold_is_refused_with_a_clear_message(tmp_path):
    from swetui.config import ConfigError, load_settings

    config = tmp_path / "config.toml"
    config.write_text("compaction_threshold = 0.6\ncompaction_target = 0.7\n")
    try:
        load_settings(None, user_file=config)
    except ConfigError as exc:
        assert "compaction_target" in str(exc) and str(config) in str(exc)
    else:
        raise AssertionError("a target over the threshold was accepted")
    config.write_text("compaction_threshold = 0.4\n")
    assert load_settings(None, user_file=config).target_share == 0.25
