"""The symbol map never delays the first frame: the screen is up and usable while the map is
still being built, and its outline shows up in the inspector when the build ends."""

from __future__ import annotations

from swetui.agent.repository_map import ITEM_ID
from swetui.engine.items import ItemState
from tests.ui.waits import until


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
