import subprocess
import sys

from swetui.engine.assembly import PIPELINE, assemble
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer

from .helpers import conversation

BUILD = """
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer
from tests.engine.helpers import conversation
engine = ContextEngine()
engine.add(ContextItem(id="system", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                       title="System", content="You are helpful. é ü 漢字"))
engine.add(ContextItem(id="m", kind=ItemKind.MEMORY_FILE, layer=Layer.MEMORY, title="AGENTS.md",
                       content="Use tabs."))
conversation(engine, 4)
engine.add(ContextItem(id="f", kind=ItemKind.FILE, layer=Layer.TASK, title="a.py",
                       content="print(1)"))
engine.pin("c2")
print(engine.assemble().request.canonical_json())
"""


def test_same_inputs_give_byte_identical_requests_across_processes():
    outputs = {subprocess.run([sys.executable, "-c", BUILD], capture_output=True, check=True,
                              env={"PYTHONHASHSEED": str(seed), "PATH": ""}).stdout
               for seed in (1, 2, 3)}
    assert len(outputs) == 1
    assert b"Use tabs." in outputs.pop()


def test_layers_land_where_the_design_says():
    engine = ContextEngine()
    engine.add(ContextItem(id="system", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                           title="System", content="SYSTEM-TEXT"))
    engine.add(ContextItem(id="m", kind=ItemKind.MEMORY_FILE, layer=Layer.MEMORY,
                           title="AGENTS.md", content="MEMORY-TEXT"))
    conversation(engine, 2)
    engine.add(ContextItem(id="f", kind=ItemKind.FILE, layer=Layer.TASK, title="a.py",
                           content="TASK-TEXT", turn_created=2))
    result = engine.assemble()
    request = result.request
    assert "SYSTEM-TEXT" in request.system and "MEMORY-TEXT" in request.system
    # Retrieved material changes every turn: it goes after the newest message, so the
    # conversation before it is sent again unchanged (and stays cached).
    last_user = [m for m in request.messages if m.role == "user"][-1]
    assert last_user.content == "question 2: some text"
    assert request.context.startswith('<context id="f"') and "TASK-TEXT" in request.context
    assert [m.role for m in request.messages] == ["user", "assistant", "tool"] * 2
    assert [r.name for r in result.chain] == [name for name, _, _ in PIPELINE]
    assert result.layer_tokens[Layer.TASK] == result.item_tokens["f"]


def test_a_failing_processor_is_reported_and_skipped():
    def broken(state):
        raise RuntimeError("boom")

    engine = ContextEngine()
    conversation(engine, 1)
    pipeline = [*PIPELINE, ("broken", 45, broken)]
    result = assemble(engine, limit=10_000, reserve=0, pipeline=pipeline)
    failed = result.failed
    assert [record.name for record in failed] == ["broken"]
    assert "RuntimeError: boom" in (failed[0].error or "")
    assert len(result.request.messages) == 3  # the send still goes out


def test_budget_enforcement_trims_oldest_turns_not_the_current_one():
    engine = ContextEngine()
    conversation(engine, 6, body="word " * 400)
    result = assemble(engine, limit=2_500, reserve=500)
    assert result.total <= 2_000
    assert result.trimmed and "u1" in result.trimmed
    assert "u6" not in result.trimmed
    assert result.request.messages[-1].tool_call_id == "call6"


def test_pinning_system_items_keeps_them_working_where_they_belong():
    """Pinning means 'always send in full': a pinned tool stays a tool the model can call,
    a pinned system prompt or memory file stays in the system prompt (not a user block)."""
    from swetui.engine.assembly import tool_schema_text
    from swetui.messages import ToolSchema

    schema = ToolSchema(name="bash", description="run a command",
                        parameters={"type": "object", "properties": {}})
    engine = ContextEngine()
    engine.add(ContextItem(id="system", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                           title="System", content="SYSTEM-TEXT"))
    engine.add(ContextItem(id="tool:bash", kind=ItemKind.TOOL_SCHEMA, layer=Layer.SYSTEM,
                           title="bash", content=tool_schema_text(schema)))
    engine.add(ContextItem(id="m", kind=ItemKind.MEMORY_FILE, layer=Layer.MEMORY,
                           title="AGENTS.md", content="MEMORY-TEXT"))
    conversation(engine, 1)
    before = engine.assemble().request
    for item_id in ("system", "tool:bash", "m"):
        engine.pin(item_id)
    result = engine.assemble()
    assert [tool.name for tool in result.request.tools] == ["bash"]
    assert result.request.system == before.system
    assert result.request.messages == before.messages
    assert result.total == engine.budget().total
    assert result.layer_tokens[Layer.PINNED] == engine.budget().layer(Layer.PINNED).tokens
