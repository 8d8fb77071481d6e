"""The session store: an append-only JSONL event log, the source of truth of a session.

Each committed event is flushed and fsynced before `append` returns, so killing the process
at any moment loses nothing committed. A torn last line (the crash case) is skipped with a
warning; so is any other line that cannot be read.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from swetui.files import read_regular
from swetui.paths import open_private_append
from swetui.secrets import redact

log = logging.getLogger(__name__)

ORIGIN_EVENT = "session_origin"
"""A new session's first event: where it started ("screen" or "run")."""

RecordEvent = Callable[[str, dict[str, Any]], None]
"""Appends one event (its type and data) to the session log."""


@dataclass
class SessionLog:
    """What loading a session file gave: its events in order and any warnings."""

    session_id: str
    events: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)


@dataclass
class SessionInfo:
    session_id: str
    path: Path
    modified: float
    events: int
    title: str
    cost_usd: float = 0.0
    """What its model calls cost, as recorded with each call (`model_call` → `cost`)."""
    unpriced_calls: int = 0
    """Model calls with no known price (an unknown model, or logged before costs were)."""
    origin: str | None = None
    """Where it started ("screen", "run"), when its log says."""


def new_session_id() -> str:
    """A sortable, unique id: UTC time plus four random hex digits."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


class SessionStore:
    """Appends events to `<sessions>/<id>.jsonl`; with no directory it keeps them in memory
    (a read-only workspace still works, it just cannot persist)."""

    def __init__(self, directory: Path | None, session_id: str | None = None, *,
                 origin: str | None = None) -> None:
        self.origin = None if session_id else origin
        """Where a new session started ("screen", "run"): its log's first line says so."""
        self.session_id = session_id or new_session_id()
        self.directory = directory
        self.path = directory / f"{self.session_id}.jsonl" if directory else None
        self.events: list[dict[str, Any]] = []
        self._handle: IO[str] | None = None
        self._seq = 0
        self.error: str | None = None

    @property
    def persistent(self) -> bool:
        return self.path is not None and self.error is None

    def open(self) -> None:
        """Open the file for appending; on failure fall back to memory and say why."""
        if self.path is None or self._handle is not None:
            return
        try:
            self._handle = open_private_append(self.path)
        except OSError as exc:
            self.error = f"cannot write {self.path}: {exc.strerror or exc}"

    def continue_from(self, loaded: SessionLog) -> None:
        self.events = list(loaded.events)
        self._seq = max((event.get("seq", 0) for event in loaded.events), default=0)

    def append(self, event_type: str, data: dict[str, Any], *,
               commit: bool = True) -> dict[str, Any]:
        """Record an event; `commit` makes it durable (fsync) before returning."""
        if self.origin is not None:
            origin, self.origin = self.origin, None
            self.append(ORIGIN_EVENT, {"origin": origin}, commit=False)
        self._seq += 1
        event = {"seq": self._seq, "ts": round(time.time(), 3), "type": event_type, **data}
        self.events.append(event)
        self.open()
        if self._handle is not None and self.error is None:
            try:
                line = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
                # The last line of defence: no known secret value reaches the disk.
                self._handle.write(redact(line) + "\n")
                if commit:
                    self._handle.flush()
                    os.fsync(self._handle.fileno())
            except (OSError, ValueError) as exc:
                self.error = f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}"
                log.warning("session store: %s", self.error)
        return event

    def close(self) -> None:
        if self._handle is not None:
            try:
                self._handle.flush()
                os.fsync(self._handle.fileno())
                self._handle.close()
            except (OSError, ValueError):
                pass
            self._handle = None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _has_str_id(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("id"), str)


def _is_calls(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(call, dict) for call in value)


# The fields the replay (engine, agent, transcript) reads, with the type each must have when
# present: an event edited by hand into another shape is skipped, never a traceback later.
_FIELD_TYPES: dict[str, Any] = {"seq": _is_int, "turn": _is_int}
_EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "item": {"item": _has_str_id},
    "turn_started": {"text": _is_str},
    "approval_requested": {"action": _has_str_id},
    "approval_decided": {"action_id": _is_str},
    "model_call": {"input_tokens": _is_int, "estimated_input": _is_int,
                   "output_tokens": _is_int, "model": _is_str},
    "assistant": {"calls": _is_calls, "text": _is_str, "reasoning": _is_str},
    "tool_result": {"call_id": _is_str, "name": _is_str},
}


def _malformed_field(event: dict[str, Any]) -> str | None:
    """The first field of `event` that has the wrong type, or None."""
    checks = {**_FIELD_TYPES, **_EVENT_FIELDS.get(str(event["type"]), {})}
    for name, check in checks.items():
        if name in event and event[name] is not None and not check(event[name]):
            return name
        if name in ("seq", "turn", "item", "action", "action_id") and name in event \
                and event[name] is None:
            return name
    return None


def load_session(path: Path, *, repair: bool = False) -> SessionLog:
    """Read a session file; unreadable lines are skipped with a warning, never raised.
    With `repair`, a torn last line is cut off the file so that appending resumes cleanly."""
    session_id = path.stem
    warnings: list[str] = []
    events: list[dict[str, Any]] = []
    try:
        data = read_regular(path, None)[0]
    except OSError as exc:
        return SessionLog(session_id, [], [f"{path}: cannot be read ({exc.strerror or exc})"])
    lines = data.split(b"\n")
    torn_tail = bool(lines and lines[-1])  # a last line without its newline: a crash mid-write
    tail_complete = False
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            event = json.loads(raw.decode("utf-8"))
            if not isinstance(event, dict) or "type" not in event:
                raise ValueError("not an event")
        except (ValueError, UnicodeDecodeError):
            if torn_tail and number == len(lines):
                warnings.append(f"{path.name}: the last line was cut off (the process was "
                                "probably killed while writing); it was skipped")
            else:
                warnings.append(f"{path.name}, line {number}: unreadable, skipped")
            continue
        bad = _malformed_field(event)
        if bad is not None:
            warnings.append(f"{path.name}, line {number}: {event['type']} event with a "
                            f"malformed {bad!r} field, skipped")
            tail_complete = number == len(lines)
            continue
        events.append(event)
        tail_complete = number == len(lines)
    if torn_tail and repair:
        _repair_tail(path, data, tail_complete)
    return SessionLog(session_id, events, warnings)


def _repair_tail(path: Path, data: bytes, complete: bool) -> None:
    """End the file on a line boundary: finish a complete last line, cut a torn one."""
    try:
        with open(path, "r+b") as handle:
            if complete:
                handle.seek(0, os.SEEK_END)
                handle.write(b"\n")
            else:
                handle.truncate(data.rfind(b"\n") + 1)
    except OSError:
        pass


def session_files(directory: Path) -> list[Path]:
    """The workspace's session files, newest first (by modification time)."""
    try:
        found = [(path.stat().st_mtime, path) for path in directory.glob("*.jsonl")
                 if path.is_file()]
    except OSError:
        return []
    return [path for _, path in sorted(found, key=lambda pair: (pair[0], pair[1].name),
                                       reverse=True)]


def session_origin(path: Path) -> str | None:
    """Where the session in `path` started, from its first line; None when it does not say
    (a log from before origins were recorded, or one that cannot be read)."""
    try:
        first = read_regular(path, 4096)[0].split(b"\n", 1)[0]
        return _origin(json.loads(first))
    except (OSError, ValueError):
        return None


def _origin(first: object) -> str | None:
    """The origin a log's first event states, if it is the origin event."""
    if isinstance(first, dict) and first.get("type") == ORIGIN_EVENT:
        origin = first.get("origin")
        return origin if isinstance(origin, str) else None
    return None


def list_sessions(directory: Path) -> list[SessionInfo]:
    """Sessions in a workspace, newest first, with the first user input as a title."""
    infos = []
    for path in session_files(directory):
        loaded = load_session(path) if path.stat().st_size < 50_000_000 else None
        events = loaded.events if loaded else []
        title = next((str(event.get("text", ""))[:60] for event in events
                      if event.get("type") == "turn_started"), "")
        usd, unpriced = _recorded_cost(events)
        infos.append(SessionInfo(path.stem, path, path.stat().st_mtime, len(events),
                                 title or "(no input yet)", usd, unpriced,
                                 _origin(events[0]) if events else None))
    return infos


def _recorded_cost(events: list[dict[str, Any]]) -> tuple[float, int]:
    """The dollars the model calls of a log recorded, and how many recorded no price."""
    usd, unpriced = 0.0, 0
    for event in events:
        if event.get("type") != "model_call":
            continue
        cost = event.get("cost")
        value = cost.get("usd") if isinstance(cost, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            usd += value
        else:
            unpriced += 1
    return usd, unpriced
