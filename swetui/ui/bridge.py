"""From the agent's event bus to Textual messages.

The bus calls listeners synchronously, possibly from another thread. Stream fragments
(answer and reasoning chunks) are the hot path: they are coalesced here and handed on at
most once a frame, so a fast model costs one transcript update per frame, not per token.
Every other event is forwarded as it comes, after any buffered text, so order is kept.

This is the UI's only subscription to the bus: one listener, one thread hop, events in the
order published. The screen dispatches `SessionEvent`s by type and hands each pane what it
shows (the gauge its budget, the inspector its changed items, the queue its approvals).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from pydantic import BaseModel
from textual.message import Message
from textual.message_pump import MessagePump

from swetui.agent import (
    AgentEvent,
    AnswerChunk,
    ReasoningChunk,
    ToolCallFinished,
    ToolCallStarted,
)
from swetui.engine.bus import EventBus
from swetui.text import terminal_safe

FRAME_SECONDS = 1 / 30
"""How often buffered stream text is handed to the transcript (the UI's lag bound)."""


class SessionEvent(Message):
    """An engine, turn, approval or compaction event, in order."""

    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event


class StreamText(Message):
    """Coalesced stream text of one turn: `kind` is `answer` or `reasoning`."""

    def __init__(self, turn: int, kind: str, text: str) -> None:
        super().__init__()
        self.turn = turn
        self.kind = kind
        self.text = text


class EventBridge:
    """Subscribes to a bus and posts `SessionEvent` / `StreamText` messages to `target`."""

    def __init__(self, target: MessagePump, *, frame: float = FRAME_SECONDS) -> None:
        self.target = target
        self.frame = frame
        self._thread = threading.get_ident()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._key: tuple[int, str] | None = None
        self._parts: list[str] = []
        self._scheduled = False
        """A flush is on its way for the buffered text (armed, or being armed)."""
        self._flush_handle: asyncio.TimerHandle | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._lock = threading.Lock()

    def attach(self, bus: EventBus) -> None:
        """Start listening (call from the app's event loop)."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._unsubscribe = bus.subscribe(self.on_event)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.flush()

    def on_event(self, event: BaseModel) -> None:
        """The bus listener: buffer stream text, forward every other `AgentEvent`."""
        if isinstance(event, AnswerChunk | ReasoningChunk):
            kind = "answer" if isinstance(event, AnswerChunk) else "reasoning"
            with self._lock:
                key = (event.turn, kind)
                if self._key is not None and self._key != key:
                    self._flush_locked()
                self._key = key
                self._parts.append(event.text)
                schedule = not self._scheduled
                self._scheduled = True
            if schedule:
                self._schedule_flush()
            return
        if isinstance(event, AgentEvent):  # what a session publishes, and nothing else
            self.flush()
            self.target.post_message(SessionEvent(_shown(event)))

    def _schedule_flush(self) -> None:
        loop = self._loop
        if loop is None:
            self.flush()
        elif threading.get_ident() == self._thread:
            self._arm()
        else:
            loop.call_soon_threadsafe(self._arm)

    def _arm(self) -> None:
        """Start the frame timer (on the event loop's thread)."""
        assert self._loop is not None
        handle = self._loop.call_later(self.frame, self.flush)
        with self._lock:
            if self._scheduled and self._flush_handle is None:
                self._flush_handle = handle
                return
        handle.cancel()  # flushed meanwhile, or another timer is already armed

    def flush(self) -> None:
        """Hand on buffered text now (before any other event, and at the frame tick)."""
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        handle, self._flush_handle = self._flush_handle, None
        self._scheduled = False
        if handle is not None:
            handle.cancel()
        if self._parts and self._key is not None:
            turn, kind = self._key
            text = terminal_safe("".join(self._parts))
            self._parts.clear()
            self.target.post_message(StreamText(turn, kind, text))
        self._key = None


def _shown(event: AgentEvent) -> AgentEvent:
    """Tool names, arguments and results with control sequences made visible: Rich keeps
    ESC in text, and a file name or a command's output must not drive the terminal."""
    if isinstance(event, ToolCallStarted):
        arguments = {key: terminal_safe(value) if isinstance(value, str) else value
                     for key, value in event.arguments.items()}
        return event.model_copy(update={"name": terminal_safe(event.name),
                                        "arguments": arguments})
    if isinstance(event, ToolCallFinished):
        return event.model_copy(update={"summary": terminal_safe(event.summary),
                                        "content": terminal_safe(event.content)})
    return event
