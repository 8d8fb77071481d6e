"""The symbol map never delays the first frame: the screen is up and usable while the map is
still being built (also while the build keeps a thread busy), and its outline shows up in
the inspector when the build ends."""

from __future__ import annotations

import threading
import time

from swetui.agent.repository_map import ITEM_ID
from swetui.engine.items import ItemState
from tests.ui.waits import type_keys, until
from tests.waiting import WAIT


async def test_the_screen_is_up_while_the_map_builds_and_the_outline_arrives_after(
        make_app) -> None:
    app = make_app()
    repo_map = app.session.repo_map
    repo_map.enabled = True
    held = repo_map.map._lock  # the build cannot finish while the test holds it
    held.acquire()
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await until(pilot, lambda: repo_map.requested, "the build was started")
            assert app.screen.prompt.input.has_focus
            assert not repo_map.map.ready.is_set()
            assert ITEM_ID not in {item.id for item in app.session.engine}
            held.release()
            await until(pilot, lambda: ITEM_ID in {item.id for item in app.session.engine},
                        "the outline was added")
            item = app.session.engine.get(ITEM_ID)
            assert item.state is ItemState.DROPPED and "src/app.py" in item.content
            await until(pilot, lambda: ITEM_ID in app.screen.inspector.rows.rows,
                        "the inspector lists the outline")
    finally:
        if held.locked():
            held.release()


async def test_typing_works_while_the_map_build_keeps_a_thread_busy(make_app) -> None:
    # The build spins in Python (holding the interpreter whenever it may) until the test has
    # seen its keystrokes on the screen. A build on the screen's own thread would hold the
    # keys back until it gave up spinning (after WAIT), and be over by the time they showed.
    app = make_app()
    repo_map = app.session.repo_map
    repo_map.enabled = True
    spinning, typed = threading.Event(), threading.Event()

    def busy(rel: str) -> bool:
        spinning.set()
        give_up = time.monotonic() + WAIT
        while not typed.is_set() and time.monotonic() < give_up:  # typed: set at the end
            pass
        return False

    repo_map.map.exclude = busy
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await until(pilot, spinning.is_set, "the build is busy")
            type_keys(pilot, "where is greet")  # pilot.press would wait a second a key
            await until(pilot, lambda: app.screen.prompt.input.text == "where is greet",
                        "the keystrokes reached the prompt")
            assert not repo_map.map.ready.is_set()  # while the build was still running
            typed.set()
            await until(pilot, repo_map.map.ready.is_set, "the build ended")
    finally:
        typed.set()
