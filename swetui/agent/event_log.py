"""The JSON event log of DESIGN §6 (`.swetui/logs/<id>.log`): one JSON object a line for user
input, retrieval, model calls, tool executions with their approval, context updates and
compactions. Streaming chunks and budget ticks are left out; API keys never reach events."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import IO

from pydantic import BaseModel

from swetui.agent.turn_events import AnswerChunk, ReasoningChunk
from swetui.engine.events import BudgetChanged
from swetui.paths import open_private_append
from swetui.secrets import redact

log = logging.getLogger(__name__)

SKIPPED = (AnswerChunk, ReasoningChunk, BudgetChanged)
MAX_FIELD_CHARS = 2_000


def _trim(value: object) -> object:
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        return value[:MAX_FIELD_CHARS] + f"… ({len(value):,} chars)"
    if isinstance(value, dict):
        return {key: _trim(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trim(item) for item in value]
    return value


class EventLog:
    """Appends bus events to a log file; failures to write are reported once, then ignored."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._handle: IO[str] | None = None
        self._failed = path is None

    def __call__(self, event: BaseModel) -> None:
        if self._failed or isinstance(event, SKIPPED):
            return
        try:
            if self._handle is None:
                assert self.path is not None
                self._handle = open_private_append(self.path)
            fields = event.model_dump(mode="json")
            record = {"ts": round(time.time(), 3), "event": type(event).__name__,
                      **{key: _trim(value) for key, value in fields.items()}}
            self._handle.write(redact(json.dumps(record, ensure_ascii=False)) + "\n")
            self._handle.flush()
        except (OSError, TypeError, ValueError) as exc:
            self._failed = True
            log.warning("event log %s disabled: %s", self.path, exc)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
