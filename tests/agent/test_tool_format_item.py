"""The prompt that teaches text-mode tool calls is a context item: the inspector and the
request view show it, its tokens count, and what the server receives is exactly that."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.agent.tool_format import TOOL_FORMAT_ID
from swetui.engine.items import Layer
from swetui.messages import ToolSchema
from tests.agent.test_local_models import llama, open_session, said  # noqa: F401

__all__ = ["llama"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.mark.parametrize(("mode", "marker"), [("text", "<tool_call>"),
                                              ("json", "Every answer you give is one JSON")])
async def test_the_teaching_prompt_is_an_item_and_is_sent_exactly_once(llama, repo,  # noqa: F811
                                                                        mode, marker):
    llama.script(said('{"answer": "Hello."}' if mode == "json" else "Hello."))
    session = open_session(repo, llama, tool_calls=mode)
    try:
        item = session.engine.get(TOOL_FORMAT_ID)
        assert item.layer is Layer.SYSTEM and mode in item.title and marker in item.content
        assert item.tokens > 0  # counted in the system layer like any other part
        assembled = session.engine.assemble()
        assert item.content in assembled.request.system  # the request view's system text
        finished = await session.send("hi")
    finally:
        await session.aclose()
    assert finished.answer == "Hello."
    system = llama.requests[0].json["messages"][0]["content"]
    assert system == assembled.request.system  # nothing added that was not shown
    assert system.count("Available tools") == 1


async def test_native_and_auto_modes_have_no_such_item(llama, repo):  # noqa: F811
    for mode in ("native", "auto"):
        session = open_session(repo, llama, tool_calls=mode)
        try:
            assert TOOL_FORMAT_ID not in session.engine
        finally:
            await session.aclose()


async def test_the_item_follows_the_offered_tools(llama, repo):  # noqa: F811
    session = open_session(repo, llama, tool_calls="text")
    try:
        session.engine.drop("tool:bash")
        llama.script(said("Hello."))
        await session.send("hi")
        content = session.engine.get(TOOL_FORMAT_ID).content
        assert "- bash:" not in content and "- read_file:" in content
        assert [ToolSchema.model_validate(t["function"]).name
                for t in llama.requests[0].json.get("tools", [])] == []
    finally:
        await session.aclose()


async def test_switching_to_a_native_model_removes_it(llama, repo):  # noqa: F811
    session = open_session(repo, llama, tool_calls="text")
    try:
        assert TOOL_FORMAT_ID in session.engine
        session.set_model("offline")
        assert TOOL_FORMAT_ID not in session.engine
    finally:
        await session.aclose()
