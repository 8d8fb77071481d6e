"""The rules that teach text-mode tool calls are a context item: the inspector and the
request view show them, their tokens count, and the server receives exactly the request's
system text and its tools (written out, as the wire form of `tools`), nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.agent.tool_format import TOOL_FORMAT_ID
from swetui.engine.items import Layer
from swetui.providers.text_calls import tool_list
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
    # Nothing added that was not shown: the system text, then the request's tools.
    assert system == f"{assembled.request.system}\n\n{tool_list(assembled.request.tools)}"
    assert system.count("# Tools") == 1 and system.count("Available tools") == 1


async def test_native_and_auto_modes_have_no_such_item(llama, repo):  # noqa: F811
    for mode in ("native", "auto"):
        session = open_session(repo, llama, tool_calls=mode)
        try:
            assert TOOL_FORMAT_ID not in session.engine
        finally:
            await session.aclose()


async def test_the_tools_are_counted_once_and_follow_what_is_offered(llama, repo):  # noqa: F811
    session = open_session(repo, llama, tool_calls="text")
    try:
        rules = session.engine.get(TOOL_FORMAT_ID)
        assert "read_file" not in rules.content  # the tools are their own items, not here
        session.engine.drop("tool:bash")
        llama.script(said("Hello."))
        await session.send("hi")
    finally:
        await session.aclose()
    system = llama.requests[0].json["messages"][0]["content"]
    assert "- bash:" not in system and "- read_file:" in system
    assert "tools" not in llama.requests[0].json


async def test_switching_to_a_native_model_removes_it(llama, repo):  # noqa: F811
    session = open_session(repo, llama, tool_calls="text")
    try:
        assert TOOL_FORMAT_ID in session.engine
        session.set_model("offline")
        assert TOOL_FORMAT_ID not in session.engine
    finally:
        await session.aclose()
