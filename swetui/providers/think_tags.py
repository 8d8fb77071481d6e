"""Reasoning that a server leaves in the answer text as `<think>…</think>` (DeepSeek-R1,
Qwen3 and QwQ behind servers that do not split it into `reasoning_content`)."""

from __future__ import annotations

from swetui.providers.events import ReasoningDelta, TextDelta

_OPEN = "<think>"
_CLOSE = "</think>"


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that begins `tag` (it may continue next chunk)."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


class ThinkTags:
    """Splits streamed content into reasoning (inside think tags) and answer text. A think
    block is only read at the start of the answer, where these models put it."""

    def __init__(self) -> None:
        self._pending = ""
        self._inside = False
        self._answer_started = False

    def feed(self, content: str) -> list[ReasoningDelta | TextDelta]:
        """Events for one content delta (tags may be cut across deltas)."""
        self._pending += content
        events: list[ReasoningDelta | TextDelta] = []
        while self._pending:
            if self._inside:
                end = self._pending.find(_CLOSE)
                if end < 0:
                    keep = _partial_suffix(self._pending, _CLOSE)
                    self._emit(events, ReasoningDelta, self._pending[: len(self._pending) - keep])
                    self._pending = self._pending[len(self._pending) - keep:]
                    break
                self._emit(events, ReasoningDelta, self._pending[:end])
                self._pending = self._pending[end + len(_CLOSE):]
                self._inside = False
                continue
            if self._answer_started:
                self._emit(events, TextDelta, self._pending)
                self._pending = ""
                break
            start = self._pending.lstrip()
            if not start:
                break
            if start.startswith(_OPEN):
                self._pending = start[len(_OPEN):]
                self._inside = True
                continue
            if _OPEN.startswith(start):
                break  # maybe the opening tag, cut
            self._pending = start  # the blank lines between a think block and the answer
            self._answer_started = True
        return events

    def finish(self) -> list[ReasoningDelta | TextDelta]:
        """The content ended: whatever is held is flushed (an unclosed think block stays
        reasoning)."""
        pending, self._pending = self._pending, ""
        if not pending:
            return []
        return [ReasoningDelta(text=pending) if self._inside else TextDelta(text=pending)]

    @staticmethod
    def _emit(events: list[ReasoningDelta | TextDelta],
              kind: type[ReasoningDelta] | type[TextDelta], text: str) -> None:
        if text:
            events.append(kind(text=text))
