"""Every reader that puts a workspace file's text where the model, the screen or the disk gets
it keeps the one secret rule (`sandbox.secret_files`): a cloned repository that ships
`CLAUDE.md -> .env` (git keeps symbolic links), or a hard link of `.env` under an innocent
name, must not carry the user's `.env` into the request."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swetui.agent import secret_files, write_project_memory
from swetui.engine.symbols.semantic import MODEL, SemanticRanker, VectorCache
from swetui.engine.symbols.semantic_text import definition_text
from swetui.engine.symbols.symbol_map import SymbolMap
from tests.agent.test_retrieval_reaches_the_request import offline_session

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
    async with offline_session(tmp_path) as (session, provider):
        finished = await session.send("hello")
        assert finished.error is None
        sent = provider.requests[0].canonical_json()  # everything the model gets
        assert "Prefer small commits." in sent  # memory files are still read
        assert KEY not in sent and "billing account" not in sent
        assert any("CLAUDE.md" in notice and "secret" in notice
                   for notice in session.workspace.notices)


async def test_swetui_init_does_not_copy_a_secret_into_swetui_md(tmp_path: Path) -> None:
    """`requirements.txt -> .env` listed the keys as dependencies in SWETUI.md; a README that
    is a hard link of `.env` gave its overview."""
    (tmp_path / ".env").write_text(f"STRIPE_SECRET={KEY}\n# Billing account for production\n")
    (tmp_path / "requirements.txt").symlink_to(".env")
    os.link(tmp_path / ".env", tmp_path / "README.md")
    (tmp_path / "app.py").write_text('"""Serves the shop."""\n')
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n'
                                             'dependencies = ["httpx"]\n')
    outcome = await write_project_memory(tmp_path, progress=lambda _: None)
    written = outcome.path.read_text()
    assert "httpx" in written  # the manifests are still read
    assert KEY not in written and "Billing account" not in written


def test_a_mapped_file_that_became_a_secret_is_embedded_by_its_names_alone(
        tmp_path: Path) -> None:
    """The ranking by meaning reads a candidate's head at the map's lines: a mapped file
    swapped for a hard link of `.env` (as many lines) must not be embedded, nor its text
    kept as the vector cache's key."""
    source = 'def retry_delay(attempt):\n    """Wait before retrying."""\n    return 2\n'
    secret = f"def billing():\n    STRIPE_SECRET = '{KEY}'\n    return 1\n"
    (tmp_path / "net.py").write_text(source)
    symbols = SymbolMap(tmp_path)
    symbols.build()
    index = symbols.index()
    (definition,) = index.by_file["net.py"].definitions
    (tmp_path / ".env").write_text(secret)
    (tmp_path / "net.py").unlink()
    os.link(tmp_path / ".env", tmp_path / "net.py")
    cache = VectorCache()
    ranker = SemanticRanker(tmp_path, MODEL, cache, mapped=index.by_file,
                            secrets=secret_files(tmp_path))
    cosines = ranker.cosines("how long before retrying?", [(1.0, "net.py", definition)])
    assert cosines is not None and len(cosines) == 1
    leaked = definition_text(definition, secret.splitlines())
    assert KEY in leaked and cache.get(leaked) is None
    assert cache.get(definition_text(definition, [])) is not None  # "retry delay:"
