"""Every reader that puts a workspace file's text where the model, the screen or the disk gets
it keeps the one secret rule (`sandbox.secret_files`): a cloned repository that ships
`CLAUDE.md -> .env` (git keeps symbolic links), or a hard link of `.env` under an innocent
name, must not carry the user's `.env` into the request."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swetui.agent import AgentSession
from swetui.options import LaunchOptions
from tests.agent.test_retrieval_reaches_the_request import RecordingOfflineProvider

KEY = "sk-ant-planted-MEMORY-0123456789abcdef"


@pytest.mark.parametrize("link", ["symbolic", "hard"])
async def test_a_memory_file_that_is_another_name_of_env_is_not_sent(
        tmp_path: Path, link: str) -> None:
    (tmp_path / ".env").write_text(f"# the billing account\nSTRIPE_SECRET={KEY}\n")
    if link == "symbolic":
        (tmp_path / "CLAUDE.md").symlink_to(".env")
    else:
        os.link(tmp_path / ".env", tmp_path / "CLAUDE.md")
    (tmp_path / "AGENTS.md").write_text("Prefer small commits.\n")
    provider = RecordingOfflineProvider()
    session = AgentSession.open(LaunchOptions(path=tmp_path), env={}, provider=provider)
    session.start()
    try:
        finished = await session.send("hello")
        assert finished.error is None
        sent = provider.requests[0].canonical_json()  # everything the model gets
        assert "Prefer small commits." in sent  # memory files are still read
        assert KEY not in sent and "billing account" not in sent
        assert any("CLAUDE.md" in notice and "secret" in notice
                   for notice in session.workspace.notices)
    finally:
        await session.aclose()
