"""The stable prefix and the cache view: between turns the request only grows at its end
(summary, notes and retrieval sit after the newest message), and a change in the middle of
the history moves the cached boundary exactly there."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swetui.engine.cache import LIFETIME, MIN_CACHED
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source

from .helpers import conversation

BODY = " ".join(f"word{n}" for n in range(300))


def engine_with(turns: int, model: str = "anthropic:claude-sonnet-4-5") -> ContextEngine:
    engine = ContextEngine(model=model)
    engine.add(ContextItem(id="system", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                           title="System", content="You are a coding agent. " + BODY))
    engine.add(ContextItem(id="mem:AGENTS.md", kind=ItemKind.MEMORY_FILE, layer=Layer.MEMORY,
                           title="AGENTS.md", content="Use tabs. " + BODY))
    conversation(engine, turns, body=BODY)
    return engine


def add_turn(engine: ContextEngine, turn: int) -> None:
    """One more exchange, with what changes every turn: notes, summary, retrieval."""
    engine.turn = turn
    engine.add(ContextItem(id=f"u{turn}", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                           title=f"q{turn}", content=f"question {turn}", origin=Origin.USER,
                           turn_created=turn))
    engine.add(ContextItem(id="notes", kind=ItemKind.SESSION_NOTES, layer=Layer.MEMORY,
                           title="Session notes", content=f"# Session notes\ncurrent: {turn}"))
    engine.add(ContextItem(id="summary", kind=ItemKind.SUMMARY, layer=Layer.SUMMARY,
                           title="Running summary", content=f"So far {turn} turns."))
    for item in list(engine):
        if item.layer is Layer.TASK:
            engine.drop(item.id)
    engine.add(ContextItem(id=f"f{turn}", kind=ItemKind.FILE, layer=Layer.TASK,
                           title=f"f{turn}.py", content=f"def f{turn}(): pass",
                           source=Source(path=f"f{turn}.py"), turn_created=turn))


def test_the_next_turn_only_grows_the_request_at_its_end():
    engine = engine_with(3)
    before = engine.assemble().request
    add_turn(engine, 4)
    after = engine.assemble().request
    assert after.system == before.system and after.tools == before.tools
    assert after.messages[:len(before.messages)] == before.messages
    assert "current: 4" in after.context and "f4.py" in after.context
    assert "current: 4" not in after.system and "So far" not in after.system


def test_breakpoints_sit_at_the_stable_boundaries():
    engine = engine_with(3)
    add_turn(engine, 4)
    result = engine.assemble()
    request = result.request
    system_prompt = request.system.split("\n\n## AGENTS.md")[0]
    assert request.cache.system == (len(system_prompt), len(request.system))
    # The end of the earlier turns (the tool result of turn 3) and the newest message.
    last_of_turn_3 = max(i for i, m in enumerate(request.messages) if m.tool_call_id == "call3")
    assert request.cache.messages == (last_of_turn_3, len(request.messages) - 1)
    assert len(request.cache.system) + len(request.cache.messages) <= 4
    assert result.breakpoints[-1] == len(result.prefix)


def test_a_new_turn_reads_everything_sent_before_from_the_cache():
    engine = engine_with(3)
    sent = engine.assemble()
    engine.note_sent(sent, at=100.0)
    add_turn(engine, 4)
    view = engine.cache_view(now=160.0)
    previous = sum(unit.tokens for unit in sent.prefix)
    assert view.state == "warm" and view.changed_at == "u4"
    assert view.unchanged == view.cached == previous > MIN_CACHED
    assert view.fresh == view.total - previous


def test_a_change_in_the_middle_moves_the_cached_boundary_exactly_there():
    for model in ("openai:gpt-4o", "anthropic:claude-sonnet-4-5"):
        engine = engine_with(4, model)
        sent = engine.assemble()
        engine.note_sent(sent, at=0.0)
        engine.drop("c2")  # the tool result of turn 2
        view = engine.cache_view(now=1.0)
        position = next(i for i, unit in enumerate(sent.prefix) if unit.item_id == "c2")
        before_change = sum(unit.tokens for unit in sent.prefix[:position])
        assert view.changed_at == "c2"
        assert view.unchanged == before_change
        if model.startswith("openai"):  # caches any unchanged prefix
            assert view.cached == before_change
        else:  # Anthropic reads up to its last breakpoint before the change: the memory
            memory_end = sent.breakpoints[1]
            assert sent.prefix[memory_end - 1].item_id == "mem:AGENTS.md"
            assert view.cached == sum(unit.tokens for unit in sent.prefix[:memory_end])


def test_an_expired_cache_or_another_model_reads_nothing():
    engine = engine_with(3)
    engine.note_sent(engine.assemble(), at=0.0)
    assert engine.cache_view(now=LIFETIME + 1).state == "expired"
    assert engine.cache_view(now=LIFETIME + 1).cached == 0
    engine.model = "anthropic:claude-opus-4-1"
    view = engine.cache_view(now=1.0)
    assert view.state == "other-model" and view.cached == 0
    assert ContextEngine().cache_view(now=0.0).state == "cold"


steps = st.lists(st.sampled_from(["turn", "notes", "retrieve", "summary"]), min_size=1,
                 max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=steps)
def test_only_the_user_or_a_compaction_changes_the_sent_prefix(steps):
    engine = engine_with(2)
    turn = 2
    for step in steps:
        before = engine.assemble()
        if step == "turn":
            turn += 1
            add_turn(engine, turn)
        elif step == "notes":
            engine.add(ContextItem(id="notes", kind=ItemKind.SESSION_NOTES, layer=Layer.MEMORY,
                                   title="Session notes", content=f"notes {len(steps)} {turn}"))
        elif step == "summary":
            engine.add(ContextItem(id="summary", kind=ItemKind.SUMMARY, layer=Layer.SUMMARY,
                                   title="Running summary", content=f"summary {turn}"))
        else:
            engine.add(ContextItem(id=f"r{turn}", kind=ItemKind.GREP, layer=Layer.TASK,
                                   title="grep", content=f"hit {turn}", turn_created=turn))
        after = engine.assemble()
        previous, current = before.request, after.request
        assert current.system == previous.system and current.tools == previous.tools
        assert current.messages[:len(previous.messages)] == previous.messages
        assert after.prefix[:len(before.prefix)] == before.prefix
