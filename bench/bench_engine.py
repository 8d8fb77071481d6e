"""Budget update after one item changes, and assembly, on a 2,000-item / 256k-token context."""

from __future__ import annotations

import random
from typing import Any

from bench.common import entry, median, percentile, timings
from swetui.engine.budget import BudgetSettings
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Source
from swetui.engine.payloads import AssistantPayload, ToolCallPayload
from swetui.engine.recount import recount_all

CYCLE = (ItemKind.USER_MESSAGE, ItemKind.ASSISTANT_MESSAGE, ItemKind.TOOL_CALL)
ITEMS = 2_000
TOKENS = 256_000
WORDS = ["def", "class", "return", "self", "value", "config", "parser", "token", "engine",
         "layer", "budget", "item", "async", "await", "import", "from", "with", "yield"]


def build_context(items: int = ITEMS, tokens: int = TOKENS, seed: int = 7) -> ContextEngine:
    """A realistic mix: conversation turns with tool results, and retrieved files."""
    rng = random.Random(seed)
    engine = ContextEngine(BudgetSettings(limit=300_000, threshold=0.95, reserve=16_000))
    per_item = tokens // items
    with engine.batch("bench"):
        for index in range(items):
            text = " ".join(rng.choice(WORDS) for _ in range(per_item - 6)) + f" #{index}"
            turn = index // 3 + 1
            kind = CYCLE[index % 3]
            payload: AssistantPayload | ToolCallPayload | None = None
            if kind is ItemKind.ASSISTANT_MESSAGE:
                payload = AssistantPayload(tool_call_ids=(f"call{turn}",))
            elif kind is ItemKind.TOOL_CALL:
                payload = ToolCallPayload(name="read_file",
                                          arguments={"path": f"src/m{turn}.py"})
            engine.add(ContextItem(id=f"i{index}", kind=kind, layer=Layer.HISTORY,
                                   title=f"item {index}", content=text, turn_created=turn,
                                   source=Source(tool_call_id=f"call{turn}")
                                   if kind is ItemKind.TOOL_CALL else Source(),
                                   payload=payload))
    return engine


def bench_budget_update() -> dict[str, Any]:
    engine = build_context()
    rng = random.Random(1)
    counter = iter(range(10**9))

    def change_one() -> None:
        index = rng.randrange(ITEMS)
        n = next(counter)
        text = " ".join(rng.choice(WORDS) for _ in range(120)) + f" change {n}"
        engine.set_content(f"i{index}", text)
        engine.budget()

    for _ in range(20):
        change_one()
    incremental = timings(change_one, 300)
    full = timings(lambda: recount_all(engine), 7)
    assert engine.budget().total == recount_all(engine).total  # both agree on the figure
    p99 = percentile(incremental, 99) * 1000
    ratio = median(full) / median(incremental)
    return entry("budget_update_one_item", p99, "ms p99", baseline=median(full) * 1000,
                 ratio=ratio, target="p99 <= 5 ms and >= 25x faster than a full recount",
                 passed=p99 <= 5 and ratio >= 25, median_ms=round(median(incremental) * 1000, 4))


def bench_assembly() -> dict[str, Any]:
    engine = build_context()
    result = engine.assemble()
    assert result.total >= 250_000 * 0.9, result.total

    def naive() -> None:  # assembling and recounting every item, no cache
        recount_all(engine)
        engine.assemble()

    for _ in range(3):
        engine.assemble()
    times = timings(engine.assemble, 15)
    baseline = timings(naive, 5)
    value = median(times) * 1000
    return entry("assembly_256k", value, "ms median", baseline=median(baseline) * 1000,
                 ratio=median(baseline) / median(times), target="<= 20 ms",
                 passed=value <= 20, tokens=result.total, items=ITEMS)


def run() -> list[dict[str, Any]]:
    return [bench_budget_update(), bench_assembly()]
