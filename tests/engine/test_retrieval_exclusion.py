"""One rule decides what retrieval must not read, whichever path is asked first: the walk
of the tree (a bare file name in the request makes it walk before anything else), a path
the request names, or the symbol map's hits. A planted `settings.py -> .env` and a
`.env` deep in the tree stay out in every order."""

from __future__ import annotations

from pathlib import Path

import pytest

from swetui.agent.sandbox import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve

KEY = "sk-ant-planted-EXCLUDED-0123456789abcdef"


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def start():\n    return 'TOKEN_ROTATION'\n")
    (tmp_path / "src" / ".env").write_text(f"TOKEN_ROTATION={KEY}\n")
    (tmp_path / ".env").write_text(f"API_KEY={KEY}\n")
    (tmp_path / "settings.py").symlink_to(".env")
    (tmp_path / "keys").symlink_to("src")
    return tmp_path


@pytest.mark.parametrize("request_text", [
    "look at settings.py and keys/.env, then app.py: where is TOKEN_ROTATION set?",
    "app.py first: where is TOKEN_ROTATION set? also settings.py and keys/.env",
    "where is TOKEN_ROTATION set? show the files, settings.py, keys/.env",
])
def test_what_retrieval_must_not_read_is_the_same_in_every_order(
        planted: Path, request_text: str) -> None:
    result = retrieve(planted, request_text, ContextEngine(), turn=1, exclude=secret_files(planted),
                      semantic=None)
    sent = "\n".join(item.content for item in result.items)
    assert KEY not in sent
    assert "settings.py: may hold secrets, not read" in result.notes
    assert "TOKEN_ROTATION" in sent  # the grep still ran and found the source
