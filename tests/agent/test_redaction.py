"""Known secret values never reach the model, the screen or the disk through swetui's own
paths: tool results, retrieval, `@path`, the session store, the event log, provider errors.
(Defence in depth: the values are matched exactly, an encoded copy is not caught.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel

from swetui.agent.events import ApprovalRequested
from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.providers.events import StreamError, TextDelta

from .scripted import ScriptedProvider, answer, calls


def open_session(root: Path, provider: ScriptedProvider, **options) -> AgentSession:
    return AgentSession.open(LaunchOptions(path=root, **options), env={}, provider=provider)


def leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [name for name, value in secrets.items() if value in text]


def files_with_leaks(root: Path, secrets: dict[str, str]) -> list[str]:
    found = []
    for path in (root / ".swetui").rglob("*"):
        if path.is_file() and leaks(path.read_text(errors="replace"), secrets):
            found.append(str(path.relative_to(root)))
    return found


async def test_tool_results_retrieval_and_added_paths_are_redacted(workspace, planted_secrets):
    key, token = planted_secrets["ANTHROPIC_API_KEY"], planted_secrets["MY_SERVICE_TOKEN"]
    (workspace / "notes.txt").write_text(f"anthropic: {key}\nservice: {token}\nend\n")
    provider = ScriptedProvider(
        calls(("c1", "read_file", {"path": "notes.txt"}),
              ("c2", "grep", {"pattern": "PLANTED"}),
              ("c3", "bash", {"command": "cat notes.txt"})),
        answer("Read them."))
    session = open_session(workspace, provider, mode="auto")
    events: list[BaseModel] = []
    session.bus.subscribe(events.append)
    finished = await session.send("what is in notes.txt")
    assert finished.error is None, finished.error
    session.add_path("notes.txt")
    final_request = session.engine.assemble().request.model_dump_json()
    await session.aclose()

    sent = "".join(request.model_dump_json() for request in provider.requests)
    assert leaks(sent + final_request, planted_secrets) == []
    assert "[redacted: ANTHROPIC_API_KEY]" in sent and "[redacted: MY_SERVICE_TOKEN]" in sent
    assert "service: [redacted: MY_SERVICE_TOKEN]" in final_request  # the @path item too
    shown = "".join(event.model_dump_json() for event in events)  # what the screen gets
    assert leaks(shown, planted_secrets) == []
    assert "anthropic: [redacted: ANTHROPIC_API_KEY]" in shown
    assert leaks("".join(item.model_dump_json() for item in session.engine),
                 planted_secrets) == []
    assert files_with_leaks(workspace, planted_secrets) == []
    assert key in (workspace / "notes.txt").read_text()  # the file itself is untouched


async def test_a_provider_error_echoing_a_key_is_redacted(workspace, planted_secrets):
    key = planted_secrets["OPENAI_API_KEY"]
    provider = ScriptedProvider([TextDelta(text="Hi"),
                                 StreamError(message=f"401: invalid key {key}")])
    session = open_session(workspace, provider)
    finished = await session.send("hello")
    await session.aclose()
    assert finished.error == "401: invalid key [redacted: OPENAI_API_KEY]"
    assert files_with_leaks(workspace, planted_secrets) == []


async def test_the_user_typing_a_key_does_not_put_it_on_disk(workspace, planted_secrets):
    key = planted_secrets["ANTHROPIC_API_KEY"]
    provider = ScriptedProvider(answer("Noted."))
    session = open_session(workspace, provider)
    await session.send(f"my key is {key}, keep it")
    await session.aclose()
    assert files_with_leaks(workspace, planted_secrets) == []
    assert key not in provider.requests[0].model_dump_json()


async def test_a_restored_edit_saved_with_a_redacted_key_is_not_applied(workspace,
                                                                        planted_secrets):
    key = planted_secrets["ANTHROPIC_API_KEY"]
    settings_file = workspace / "settings.py"
    settings_file.write_text(f'KEY = "{key}"\nGREETING = "hello"\n')
    first = open_session(workspace, ScriptedProvider(
        calls(("c1", "read_file", {"path": "settings.py"}),
              ("c2", "edit_file", {"path": "settings.py", "old": '"hello"', "new": '"bye"'})),
        answer("done")))
    requested = asyncio.Event()
    first.bus.subscribe(lambda event: requested.set(), ApprovalRequested)
    turn = asyncio.create_task(first.send("change the greeting"))
    await asyncio.wait_for(requested.wait(), 10)
    # The process is killed with the edit pending: the log as it is now is all that stays.
    log = first.workspace.store.path
    assert log is not None
    as_killed = log.read_bytes()
    turn.cancel()
    await asyncio.gather(turn, return_exceptions=True)
    await first.aclose()
    log.write_bytes(as_killed)
    assert files_with_leaks(workspace, planted_secrets) == []

    second = open_session(workspace, ScriptedProvider(answer("ok")), continue_last=True)
    assert len(second.restored) == 1
    second.start()
    outcomes = await asyncio.wait_for(second.restored_outcomes(), 10)  # nobody was asked
    await second.aclose()
    assert [result.is_error for _, result in outcomes] == [True]
    assert "redacted" in outcomes[0][1].content
    # The file keeps its key: the label never replaced it.
    assert settings_file.read_text() == f'KEY = "{key}"\nGREETING = "hello"\n'
