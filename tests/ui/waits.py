"""Waiting in UI tests on what happened, never on how long it usually takes.

A Pilot `pause(0.1)` is a guess that holds on an idle machine and fails on a loaded one; and
`pause()` with no delay waits for the process to look idle (a CPU-time heuristic) and for
the messages queued when it was called. So a test waits for a condition it can name (the
turn finished, the edit is pending, the command's worker is done), checked each time the
screen has processed its messages. `WAIT` bounds a wedged test; it is not a speed
requirement: a slow machine is slow, not wrong.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from pydantic import BaseModel
from textual import events
from textual.command import CommandInput, CommandList, CommandPalette
from textual.keys import _character_to_key
from textual.notifications import Notification, Notifications
from textual.pilot import Pilot

from swetui.agent.turn_events import TurnFinished
from tests.waiting import WAIT


async def until(pilot: Pilot, condition: Callable[[], Any], what: str,
                timeout: float = WAIT) -> None:
    """Wait until `condition()` is true, letting the app run in between; then let the
    screen take in what that changed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting until {what}")
        await pilot.pause(0.01)
    await pilot.pause()


def keep_notices(notifications: type[Notifications]) -> Callable[..., None]:
    """`Notifications.add` that also keeps each notification in the collection's `shown`."""
    add = notifications.add

    def add_and_keep(self: Notifications, notification: Notification) -> None:
        self.__dict__.setdefault("shown", []).append(notification)
        add(self, notification)
    return add_and_keep


def notices(app: Any) -> list[Notification]:
    """Every notification the app has shown, in order, those whose time is up included:
    Textual forgets one once its timeout (5-10 s of wall clock) has passed, which a loaded
    machine reaches before the test looks (a theme's report at start-up was gone, and the
    test waited in vain). Kept by the UI tests' `still_ui` fixture (keep_notices)."""
    return list(app._notifications.__dict__.get("shown", []))


async def submit(pilot: Pilot, text: str) -> None:
    """Put `text` in the prompt and press enter (typing it key by key costs ~60 ms a key)."""
    prompt: Any = pilot.app.screen.prompt.input  # type: ignore[attr-defined]
    prompt.load_text(text)
    prompt.move_cursor(prompt.document.end)
    await pilot.pause()
    await pilot.press("enter")


def type_keys(pilot: Pilot, text: str) -> None:
    """Send `text` to the app one key event a character, as the terminal's driver does,
    without Pilot's wait after each key: `press` waits for the whole process to look idle
    (its CPU time flat for 20 ms) twice a key, which a thread kept busy never allows, so
    each wait runs to its one-second limit. The caller waits on what the keys did."""
    app = pilot.app
    for char in text:
        key = events.Key(char if char.isalnum() else _character_to_key(char), char)
        key.set_sender(app)
        app.post_message(key)


class SessionEvents:
    """Every event a session published (the bus calls listeners synchronously)."""

    def __init__(self, bus: Any) -> None:
        self.events: list[BaseModel] = []
        bus.subscribe(self.events.append)

    def count(self, kind: type[BaseModel]) -> int:
        return sum(isinstance(event, kind) for event in self.events)


_SEEN: WeakKeyDictionary[Any, SessionEvents] = WeakKeyDictionary()


def record_events(session: Any) -> None:
    """Start recording `session`'s events (before the app starts, so none is missed)."""
    _SEEN[session] = SessionEvents(session.bus)


def events_of(app: Any) -> SessionEvents:
    return _SEEN[app.session]


async def wait_idle(app: Any, pilot: Pilot, turns: int = 1) -> None:
    """Wait until `turns` turns of the app's session have finished and are on screen."""
    seen = events_of(app)
    await until(pilot, lambda: seen.count(TurnFinished) >= turns and not app.session.busy,
                f"{turns} turn(s) finished")
    await asyncio.wait_for(app.workers.wait_for_complete(
        [worker for worker in app.workers if worker.group == "turn"]), WAIT)
    await settle(pilot)


async def settle(pilot: Pilot) -> None:
    """Wait until what the session published so far is on screen: stream text buffered for
    the next frame is handed on now, and the transcript has written it."""
    screen: Any = pilot.app.screen
    bridge = getattr(screen, "bridge", None)
    if bridge is not None:
        bridge.flush()
    await pilot.pause()
    transcript = getattr(screen, "transcript", None)
    if transcript is not None:
        await transcript.settle()
    gauge, session = getattr(screen, "gauge", None), getattr(screen, "session", None)
    if gauge is not None and session is not None:
        # Repaints are throttled to a frame: the last budget shows at the next one.
        await until(pilot, lambda: gauge.budget == session.engine.budget(),
                    "the gauge shows the current budget")
    await pilot.wait_for_scheduled_animations()


def _echoes(pilot: Pilot, text: str) -> int:
    """How many times the transcript echoed the slash command `text` (`› text`)."""
    transcript: Any = getattr(pilot.app.screen, "transcript", None)
    if transcript is None:
        return 0
    return sum(str(line.render()) == f"› {text}" for line in transcript.query(".notice"))


async def slash(pilot: Pilot, text: str) -> None:
    """Send the slash command `text` and wait until it has run. The screen echoes a command
    when it starts its worker, in the same handler; once the echo shows, that worker exists
    (or has already finished)."""
    before = _echoes(pilot, text)
    await submit(pilot, text)
    await until(pilot, lambda: _echoes(pilot, text) > before, f"{text} was taken")
    running = [worker for worker in pilot.app.workers if worker.group == "command"]
    await asyncio.wait_for(pilot.app.workers.wait_for_complete(running), WAIT)
    await settle(pilot)


async def palette(pilot: Pilot, text: str, expect: str) -> None:
    """Run a command palette entry: open it, type `text`, wait until the search finished
    with an entry containing `expect` highlighted, press enter, wait until it closed."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette opened")
    screen = app.screen
    type_keys(pilot, text)  # as fast as a person types; `found` waits for the search

    def found() -> bool:
        if screen.query_one(CommandInput).value != text:
            return False
        if any(worker.node is screen for worker in app.workers):
            return False  # still searching
        options = screen.query_one(CommandList)
        highlighted = options.highlighted
        return highlighted is not None and expect in str(
            options.get_option_at_index(highlighted).prompt)

    await until(pilot, found, f"the palette found {expect!r}")
    await pilot.press("enter")
    await until(pilot, lambda: app.screen is not screen, "the palette closed")
