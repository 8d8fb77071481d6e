"""Which files count as secret: read tools and retrieval refuse them, writes to them ask."""

from __future__ import annotations

import pytest

from swetui.agent.sensitive import is_secret_file, protected_path_reason


@pytest.mark.parametrize("rel", [
    ".env", "config/.env.production", ".netrc", ".netrc-nopassword", "home/.pgpass.bak",
    "secrets.env", "deploy/prod.secret.json", "db-credentials.yaml", "app.env",
    "conf/secrets.toml", "id_rsa", "certs/server.key", ".aws/config",
])
def test_secret_files_are_recognised_and_writing_them_asks(rel: str) -> None:
    assert is_secret_file(rel)
    assert protected_path_reason(rel) is not None


@pytest.mark.parametrize("rel", [
    "swetui/secrets.py", "tests/test_secrets.py", ".env.example", "README.md",
    "settings.json", "docs/environment.md", "id_rsa.pub", "src/credentials_view.ts",
])
def test_ordinary_files_are_not_secret(rel: str) -> None:
    assert not is_secret_file(rel)
