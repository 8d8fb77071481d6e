"""Which files count as secret: read tools and retrieval refuse them, writes to them ask."""

from __future__ import annotations

import pytest

from swetui.agent.sensitive import is_secret_file, protected_path_reason


@pytest.mark.parametrize("rel", [
    ".env", "config/.env.production", ".netrc", ".netrc-nopassword", "home/.pgpass.bak",
    "secrets.env", "deploy/prod.secret.json", "db-credentials.yaml", "app.env",
    "conf/secrets.toml", "id_rsa", "certs/server.key", ".aws/config",
    # tools' credential files and Terraform's state (were readable: found attacking)
    "infra/terraform.tfstate", "infra/terraform.tfstate.backup", ".my.cnf", ".s3cfg", ".boto",
    ".vault-token", "rclone.conf", ".dockercfg", "deploy/kubeconfig", "auth.json",
    ".terraformrc", "ansible/vault_pass.txt", "gcp/service-account-prod.json",
    "keys/shop-firebase-adminsdk-x1y2z.json",
])
def test_secret_files_are_recognised_and_writing_them_asks(rel: str) -> None:
    assert is_secret_file(rel)
    assert protected_path_reason(rel) is not None


@pytest.mark.parametrize("rel", [
    "swetui/secrets.py", "tests/test_secrets.py", ".env.example", "README.md",
    "settings.json", "docs/environment.md", "id_rsa.pub", "src/credentials_view.ts",
    "main.tf", "docs/service-account.md", "src/auth_json.py", "kubeconfig.py",
])
def test_ordinary_files_are_not_secret(rel: str) -> None:
    assert not is_secret_file(rel)
