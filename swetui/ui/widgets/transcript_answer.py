"""The streamed answer: Markdown written in batches into a chain of segments.

Textual's Markdown widget makes a widget per block (a long answer is thousands) and every
append lays out the whole screen, so its cost grows with the answer. Here the answer is
split, at safe block boundaries, into segments of about 1,500 characters, each one widget
rendering its Markdown: an append re-renders only the newest segment, finished segments
keep their cached layout, and the screen holds one widget per segment. One append runs at
a time; what arrives meanwhile is joined into the next one, and the writer pauses as long
as the last append took, so layout never takes more than half of the time.
"""

from __future__ import annotations

import asyncio
import time

from rich.markdown import Heading
from rich.markdown import Markdown as RichMarkdown
from textual.containers import Vertical
from textual.widgets import Static

MAX_PAUSE = 0.1
"""The longest the writer waits between two appends (the lag bound while streaming)."""
SEGMENT_CHARS = 1_500
"""A segment is closed at the first safe boundary once it holds this many characters."""
_FENCES = ("```", "~~~")


class BoundaryFinder:
    """Finds where a new segment may start: at the beginning of a line that follows a
    blank line, outside any code fence, and not indented (so no list or code continues)."""

    def __init__(self) -> None:
        self._line = ""
        self._in_fence = False
        self._after_blank = False

    def first_boundary(self, text: str) -> int | None:
        """Scan `text` (continuing the stream) and return the first boundary offset in
        it, consuming only up to that point; None (all consumed) when there is none."""
        for index, char in enumerate(text):
            if not self._line and char != "\n" and self._after_blank and not self._in_fence \
                    and not char.isspace():
                self._after_blank = False
                return index
            if char == "\n":
                self._end_line()
            else:
                self._line += char
        return None

    def consume(self, text: str) -> None:
        for char in text:
            if char == "\n":
                self._end_line()
            else:
                self._line += char

    def _end_line(self) -> None:
        line = self._line.strip()
        if line.startswith(_FENCES):
            self._in_fence = not self._in_fence
        self._after_blank = not line
        self._line = ""


class _LeftHeading(Heading):
    LEVEL_ALIGN = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")  # type: ignore[assignment]


class _AnswerMarkdown(RichMarkdown):
    elements = {**RichMarkdown.elements, "heading_open": _LeftHeading}


class AnswerSegment(Static):
    """One segment of an answer: its Markdown source and one rendering of it."""

    DEFAULT_CSS = "AnswerSegment { height: auto; }"

    def __init__(self) -> None:
        super().__init__("")
        self.source = ""

    def append(self, text: str) -> None:
        self.source += text
        dark = self.app.current_theme.dark if self.is_attached else True
        self.update(_AnswerMarkdown(self.source, code_theme="monokai" if dark else "friendly",
                                    hyperlinks=False))


class AnswerBlock(Vertical):
    """An answer streamed as Markdown, never re-rendered whole per fragment."""

    DEFAULT_CSS = """
    AnswerBlock { height: auto; }
    """

    def __init__(self) -> None:
        super().__init__(classes="entry answer")
        self._pending: list[str] = []
        self._received: list[str] = []
        self._writer: asyncio.Task[None] | None = None
        self._segment: AnswerSegment | None = None
        self._segment_chars = 0
        self._boundaries = BoundaryFinder()

    @property
    def text(self) -> str:
        """Everything fed so far (on screen or queued)."""
        return "".join(self._received)

    @property
    def source(self) -> str:
        """The Markdown on screen now."""
        return "".join(segment.source for segment in self.query(AnswerSegment))

    def feed(self, fragment: str) -> None:
        """Queue a fragment; returns at once."""
        if not fragment:
            return
        self._received.append(fragment)
        self._pending.append(fragment)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())

    async def _write(self) -> None:
        # Each append costs a layout of the screen; pausing as long as the last append took
        # (at most MAX_PAUSE) keeps layout under half of the time however fast text comes.
        while self._pending:
            batch = "".join(self._pending)
            self._pending.clear()
            started = time.perf_counter()
            await self._append(batch)
            await self._next_refresh()
            if self._pending:
                await asyncio.sleep(min(MAX_PAUSE, time.perf_counter() - started))

    def _next_refresh(self) -> asyncio.Future[None]:
        """Resolves once the screen has laid out and painted what was just appended."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def done() -> None:
            if not future.done():
                future.set_result(None)

        if not self.is_attached or not self.call_after_refresh(done):
            done()
        return future

    async def _append(self, text: str) -> None:
        while text:
            if self._segment is None or self._segment_chars >= SEGMENT_CHARS:
                cut = self._boundaries.first_boundary(text) if self._segment else 0
                if cut is None:
                    await self._extend(text)
                    return
                if cut:
                    await self._extend(text[:cut])
                self._segment = AnswerSegment()
                self._segment_chars = 0
                await self.mount(self._segment)
                text = text[cut:]
                continue
            room = SEGMENT_CHARS - self._segment_chars
            head, text = text[:room], text[room:]
            self._boundaries.consume(head)
            await self._extend(head)

    async def _extend(self, text: str) -> None:
        assert self._segment is not None
        self._segment_chars += len(text)
        self._segment.append(text)

    async def settle(self) -> None:
        """Wait until every queued fragment is on screen."""
        while self._writer is not None and not self._writer.done():
            await self._writer
