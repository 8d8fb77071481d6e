"""DESIGN §9: a 50-turn session costs, with swetui's cache breakpoints, at most half of the
same session sent without them, both priced by genai-prices.

A scripted session (each turn: a question, a tool call, its result, an answer; session
notes, the running summary and retrieval change every turn) is assembled by the engine and
turned into Anthropic request bodies by the provider, exactly as swetui sends them. An
independent model of Anthropic's prompt cache (written here from its documentation, not
from swetui's cache view) prices each body: a breakpoint reads the longest prefix already
written (looking back up to 20 blocks), writes what is new up to it, and everything after
the last breakpoint is fresh. The same bodies with the `cache_control` markers taken out
are the baseline. Sizes: tool results of 200, 800 and 2,000 tokens.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from genai_prices import Usage as PricedUsage
from genai_prices import calc_price

from bench.common import entry
from swetui.engine.budget import BudgetSettings
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.payloads import AssistantPayload, ToolCallPayload
from swetui.engine.tokens import TokenCounter
from swetui.providers.anthropic import anthropic_body

MODEL = "claude-sonnet-4-5"
TURNS = 50
LOOKBACK = 20
"""Anthropic checks for a cached prefix at most this many blocks before a breakpoint."""
MIN_CACHED = 1_024

COUNTER = TokenCounter()


def _words(count: int, seed: int) -> str:
    return " ".join(f"w{(seed * 7919 + n) % 5003}" for n in range(count))


def _session(result_tokens: int) -> list[dict[str, Any]]:
    """The Anthropic bodies of a 50-turn session, two model calls a turn."""
    engine = ContextEngine(BudgetSettings(limit=2_000_000), model=f"anthropic:{MODEL}")
    engine.add(ContextItem(id="system", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                           title="System", content="You are a coding agent. " + _words(1500, 1)))
    engine.add(ContextItem(id="mem", kind=ItemKind.MEMORY_FILE, layer=Layer.MEMORY,
                           title="AGENTS.md", content=_words(1000, 2)))
    bodies: list[dict[str, Any]] = []
    for turn in range(1, TURNS + 1):
        engine.turn = turn
        for item in [i for i in engine if i.layer is Layer.TASK]:
            engine.drop(item.id)
        engine.add(ContextItem(id=f"u{turn}", kind=ItemKind.USER_MESSAGE, layer=Layer.HISTORY,
                               title="q", content=f"question {turn}: " + _words(40, turn),
                               origin=Origin.USER, turn_created=turn))
        engine.add(ContextItem(id=f"f{turn}", kind=ItemKind.FILE, layer=Layer.TASK,
                               title=f"f{turn}.py", content=_words(300, turn + 100),
                               source=Source(path=f"f{turn}.py"), turn_created=turn))
        bodies.append(anthropic_body(engine.assemble().request, model=MODEL))
        call = f"call{turn}"
        engine.add(ContextItem(id=f"a{turn}", kind=ItemKind.ASSISTANT_MESSAGE,
                               layer=Layer.HISTORY, title="a", content="Reading it.",
                               origin=Origin.AGENT, turn_created=turn,
                               payload=AssistantPayload(tool_call_ids=(call,))))
        engine.add(ContextItem(id=f"c{turn}", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                               title="read_file", content=_words(result_tokens, turn + 200),
                               origin=Origin.AGENT, turn_created=turn,
                               source=Source(tool_call_id=call),
                               payload=ToolCallPayload(name="read_file",
                                                       arguments={"path": f"f{turn}.py"})))
        bodies.append(anthropic_body(engine.assemble().request, model=MODEL))
        engine.add(ContextItem(id=f"r{turn}", kind=ItemKind.ASSISTANT_MESSAGE,
                               layer=Layer.HISTORY, title="r", content=_words(80, turn + 300),
                               origin=Origin.AGENT, turn_created=turn))
        engine.add(ContextItem(id="notes", kind=ItemKind.SESSION_NOTES, layer=Layer.MEMORY,
                               title="Session notes", content=f"current task: {turn}"))
        engine.add(ContextItem(id="summary", kind=ItemKind.SUMMARY, layer=Layer.SUMMARY,
                               title="Running summary", content=_words(60, turn + 400)))
    return bodies


def _blocks(body: dict[str, Any]) -> list[tuple[str, int, bool]]:
    """The body as Anthropic reads it for caching: tools, system, then message blocks, each
    with its tokens and whether it carries a breakpoint."""
    blocks: list[dict[str, Any]] = list(body.get("tools", []))
    system = body.get("system")
    blocks += system if isinstance(system, list) else (
        [{"type": "text", "text": system}] if system else [])
    for turn in body["messages"]:
        content = turn["content"]
        blocks += content if isinstance(content, list) else [{"type": "text", "text": content}]
    out = []
    for block in blocks:
        marked = "cache_control" in block
        text = json.dumps({k: v for k, v in block.items() if k != "cache_control"},
                          sort_keys=True)
        out.append((text, COUNTER.count(text), marked))
    return out


def _price(body: dict[str, Any], cache: set[str]) -> tuple[int, int, int]:
    """(input, cache read, cache write) tokens of one request; `cache` holds the prefixes
    written so far (by digest)."""
    blocks = _blocks(body)
    digests, totals = [], []
    running, tokens = hashlib.sha256(), 0
    for text, count, _ in blocks:
        running.update(text.encode() + b"\0")
        digests.append(running.hexdigest())
        tokens += count
        totals.append(tokens)
    marks = [i for i, (_, _, marked) in enumerate(blocks) if marked]
    read_end = -1
    for mark in marks:
        for position in range(mark, max(-1, mark - LOOKBACK), -1):
            if digests[position] in cache:
                read_end = max(read_end, position)
                break
    read = totals[read_end] if read_end >= 0 else 0
    last = marks[-1] if marks else -1
    written = 0
    if last >= 0 and totals[last] >= MIN_CACHED:
        written = max(0, totals[last] - read)
        cache.update(digests[mark] for mark in marks if totals[mark] >= MIN_CACHED)
    return tokens, read, written


def _cost(bodies: list[dict[str, Any]]) -> tuple[float, int, int]:
    """Dollars for the session, with its reads and writes; genai-prices prices each call."""
    cache: set[str] = set()
    usd, reads, total = 0.0, 0, 0
    for body in bodies:
        tokens, read, written = _price(body, cache)
        price = calc_price(PricedUsage(input_tokens=tokens, cache_read_tokens=read,
                                       cache_write_tokens=written, output_tokens=100),
                           MODEL, provider_id="anthropic")
        usd += float(price.total_price)
        reads += read
        total += tokens
    return usd, reads, total


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value


def run() -> list[dict[str, Any]]:
    results = []
    for size in (200, 800, 2_000):
        bodies = _session(size)
        with_marks, reads, total = _cost(bodies)
        without, _, _ = _cost([_unmarked(body) for body in bodies])
        ratio = with_marks / without
        results.append(entry(
            f"50-turn cost, tool results {size:,} tok", with_marks, "USD", baseline=without,
            ratio=ratio, target="≤ 0.5 of no breakpoints", passed=ratio <= 0.5,
            hit_rate=round(reads / total, 3), requests=len(bodies)))
    return results
