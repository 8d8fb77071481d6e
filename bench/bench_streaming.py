"""Transcript streaming: a 10,000-chunk Markdown answer through swetui's transcript (bus →
bridge → coalesced Markdown) against Textual's plain `Markdown.get_stream`, same run.

Both sides get the same chunks at the same pace (the writer yields to the loop after each
chunk, as a network stream would). The clock stops when the last chunk is on screen.
Targets (DESIGN §9): ≥ 2,000 chunks/s, ≥ 5× the plain stream, never more than 100 ms behind.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from bench.common import entry
from swetui.agent.turn_events import AnswerChunk
from swetui.engine.bus import EventBus
from swetui.ui.bridge import EventBridge, StreamText
from swetui.ui.widgets.transcript import Transcript
from swetui.ui.widgets.transcript_answer import AnswerBlock

CHUNKS = 10_000
TARGET_RATE = 2_000.0
TARGET_RATIO = 5.0
TARGET_LAG = 0.100
SIZE = (120, 40)

_PARAGRAPH = ("The context engine keeps every item with its token count, so a change "
              "recounts only what changed and the gauge moves at once. ")
_SECTION = [
    "## Step {n}\n\n",
    _PARAGRAPH, _PARAGRAPH, "\n\n",
    "- read `src/module_{n}.py` and find `handler_{n}`\n",
    "- **edit** the call site and keep the tests green\n",
    "- run `pytest -q tests/test_{n}.py`\n\n",
    "```python\ndef handler_{n}(event):\n    return event.value * {n}\n```\n\n",
]


def make_chunks(count: int = CHUNKS) -> list[str]:
    """`count` token-sized fragments of a realistic Markdown answer."""
    text: list[str] = []
    n = 0
    while sum(map(len, text)) < count * 6:
        n += 1
        text.extend(part.format(n=n) for part in _SECTION)
    joined = "".join(text)
    size = len(joined) // count
    chunks = [joined[i * size:(i + 1) * size] for i in range(count - 1)]
    chunks.append(joined[(count - 1) * size:])
    return chunks


class _PlainApp(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            yield Markdown("", id="md")


class _TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")

    def on_stream_text(self, message: StreamText) -> None:
        self.query_one(Transcript).stream(message.turn, message.kind, message.text)


async def _plain(chunks: list[str]) -> float:
    app = _PlainApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one(Markdown)
        app.query_one(VerticalScroll).anchor()
        start = time.perf_counter()
        stream = Markdown.get_stream(widget)
        for chunk in chunks:
            await stream.write(chunk)
        await stream.stop()
        await pilot.pause()
        elapsed = time.perf_counter() - start
        assert widget.source == "".join(chunks)
    return elapsed


async def _transcript(chunks: list[str]) -> tuple[float, float]:
    """(seconds to the last chunk on screen, worst lag behind the writer)."""
    app = _TranscriptApp()
    lag = 0.0
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        bus = EventBus()
        bridge = EventBridge(app)
        bridge.attach(bus)
        transcript = app.query_one(Transcript)
        start = time.perf_counter()
        for index, chunk in enumerate(chunks):
            bus.publish(AnswerChunk(turn=1, text=chunk))
            await asyncio.sleep(0)
            if index % 500 == 0:
                lag = max(lag, _behind(transcript, index, chunks))
        bridge.flush()
        while True:
            await pilot.pause()
            answers = list(transcript.query(AnswerBlock))
            if answers and len(answers[0].text) == sum(map(len, chunks)):
                break
        await transcript.settle()
        await pilot.pause()
        elapsed = time.perf_counter() - start
        assert answers[0].source == "".join(chunks)
        bridge.detach()
    return elapsed, lag


def _behind(transcript: Transcript, index: int, chunks: list[str]) -> float:
    """How long ago the newest chunk on screen was written (0 when it keeps up): a proxy
    measured by the characters still queued, at the writer's current rate."""
    answers = list(transcript.query(AnswerBlock))
    if not answers:
        return 0.0
    shown = len(answers[0].source)
    written = sum(len(chunk) for chunk in chunks[:index + 1])
    return _seconds_per_char * max(0, written - shown)


_seconds_per_char = 0.0


async def _measure(chunks: list[str]) -> dict[str, float]:
    global _seconds_per_char
    plain = await _plain(chunks)
    total_chars = sum(map(len, chunks))
    # The writer's own pace (no UI) gives the time-per-character for the lag proxy.
    bus = EventBus()
    bus.subscribe(lambda event: None)
    start = time.perf_counter()
    for chunk in chunks:
        bus.publish(AnswerChunk(turn=1, text=chunk))
        await asyncio.sleep(0)
    _seconds_per_char = (time.perf_counter() - start) / total_chars
    ours, lag = await _transcript(chunks)
    return {"plain": plain, "ours": ours, "lag": lag}


def run(chunks: int = CHUNKS) -> list[dict[str, Any]]:
    """Entries for `python -m bench`."""
    fragments = make_chunks(chunks)
    result = asyncio.run(_measure(fragments))
    rate = chunks / result["ours"]
    plain_rate = chunks / result["plain"]
    ratio = rate / plain_rate
    return [
        entry("transcript streaming", rate, "chunks/s", baseline=plain_rate, ratio=ratio,
              target=f">= {TARGET_RATE:.0f} chunks/s, >= {TARGET_RATIO:.0f}x plain get_stream",
              passed=rate >= TARGET_RATE and ratio >= TARGET_RATIO,
              seconds=round(result["ours"], 3), baseline_seconds=round(result["plain"], 3)),
        entry("transcript streaming lag", result["lag"] * 1000, "ms", baseline=None,
              ratio=None, target=f"<= {TARGET_LAG * 1000:.0f} ms behind the writer",
              passed=result["lag"] <= TARGET_LAG),
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
