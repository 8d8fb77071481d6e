"""Which variables are secrets, and how their values are redacted."""

from __future__ import annotations

import json

from swetui.agent.tools.shell import scrubbed_environment
from swetui.secrets import SecretStore, is_credential_name, is_secret_name


def test_one_rule_names_the_secrets_for_commands_and_for_redaction():
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_SERVICE_TOKEN", "DB_PASSWORD",
                 "aws_secret_access_key", "OPENAI_BASE_URL"):
        assert is_secret_name(name), name
    for name in ("PATH", "HOME", "LANG", "SWETUI_MODEL"):
        assert not is_secret_name(name), name
    # A base URL stays out of commands but is not blanked out of every output.
    assert not is_credential_name("OPENAI_BASE_URL")
    env = scrubbed_environment({"PATH": "/bin", "GITHUB_TOKEN": "ghp_x", "OPENAI_BASE_URL": "u"})
    assert "GITHUB_TOKEN" not in env and "OPENAI_BASE_URL" not in env and env["PATH"] == "/bin"


def test_values_are_replaced_by_the_name_they_came_from():
    store = SecretStore({"ANTHROPIC_API_KEY": "sk-ant-abcdefgh123",
                         "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"})
    text = "key=sk-ant-abcdefgh123; again sk-ant-abcdefgh123 at http://127.0.0.1:8080/v1"
    assert store.redact(text) == ("key=[redacted: ANTHROPIC_API_KEY]; again "
                                  "[redacted: ANTHROPIC_API_KEY] at http://127.0.0.1:8080/v1")
    assert store.get("OPENAI_BASE_URL") == "http://127.0.0.1:8080/v1"
    assert store.environment({"PATH": "/bin"}) == {
        "PATH": "/bin", "ANTHROPIC_API_KEY": "sk-ant-abcdefgh123",
        "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}


def test_short_values_are_not_redacted_and_the_longest_secret_wins():
    store = SecretStore({"SHORT_TOKEN": "abc123", "A_KEY": "prefix-secret-1",
                         "B_KEY": "prefix-secret-1-longer"})
    assert store.redact("abc123") == "abc123"  # would blank out ordinary words
    assert store.redact("x prefix-secret-1-longer y") == "x [redacted: B_KEY] y"
    assert store.redact("x prefix-secret-1 y") == "x [redacted: A_KEY] y"
    assert store.values() == ["prefix-secret-1-longer", "prefix-secret-1"]


def test_registered_values_and_their_json_escaped_form_are_redacted():
    store = SecretStore()
    assert store.redact("nothing held") == "nothing held"
    value = 'pa"ss\\word-123'
    store.register(value, "mcp:github Authorization")
    line = json.dumps({"output": f"header {value}"})
    assert value not in store.redact(f"raw {value}")
    redacted_line = store.redact(line)
    assert json.dumps(value)[1:-1] not in redacted_line
    assert json.loads(redacted_line) == {"output": "header [redacted: mcp:github Authorization]"}
    assert store.labels() == {"[redacted: mcp:github Authorization]"}
    store.clear()
    assert store.redact(f"raw {value}") == f"raw {value}"


def test_regex_characters_in_a_secret_are_matched_literally():
    store = SecretStore({"X_SECRET": "a.b*c+d?e(f)"})
    assert store.redact("a.b*c+d?e(f)") == "[redacted: X_SECRET]"
    assert store.redact("aXb*c+d?e(f)") == "aXb*c+d?e(f)"


def test_credentials_under_other_names_are_kept_from_commands() -> None:
    from swetui.agent.tools.shell import scrubbed_environment

    environ = {"GITHUB_PAT": "ghp_0123456789abcdef", "MYSQL_PWD": "hunter2hunter2",
               "SMTP_PASS": "correct-horse", "SENTRY_DSN": "https://k3y@o1.ingest/1",
               "DATABASE_URL": "postgres://app:s3cretpass@db:5432/app",
               "PATH": "/usr/bin", "PWD": "/work", "OLDPWD": "/", "HOME": "/home/me",
               "SITE_URL": "https://example.com/x", "PASSWD_FILE_COUNT": "3"}
    env = scrubbed_environment(environ)
    for name in ("GITHUB_PAT", "MYSQL_PWD", "SMTP_PASS", "SENTRY_DSN", "DATABASE_URL"):
        assert name not in env, name
    for name in ("PATH", "PWD", "OLDPWD", "HOME", "SITE_URL"):
        assert env[name] == environ[name], name


def test_credentials_known_by_their_value_are_kept_from_commands() -> None:
    """Found attacking: a CI job's JWT, a Redis URL with a password and no user, a Slack
    webhook and a Stripe key under names no word rule knows reached every command."""
    from swetui.agent.tools.shell import scrubbed_environment

    environ = {"CI_JOB_JWT": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.c2lnbmF0dXJl",
               "REDIS_URL": "redis://:hunter2hunter2@cache:6379/0",
               "SLACK_HOOK": "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX",
               "STRIPE_SK": "sk_live_0123456789abcdefABCDEF", "BILLING": "sk_live_" + "a" * 24,
               "PATH": "/usr/bin", "LANG": "C.UTF-8", "SITE_URL": "https://example.com/x",
               "EDITOR": "vim", "COMMIT": "eyJustAWord"}
    env = scrubbed_environment(environ)
    assert set(env) >= {"PATH", "LANG", "SITE_URL", "EDITOR", "COMMIT"}
    assert not {"CI_JOB_JWT", "REDIS_URL", "SLACK_HOOK", "STRIPE_SK", "BILLING"} & set(env)
    store = SecretStore(environ)
    assert store.redact("token " + environ["BILLING"]) == "token [redacted: BILLING]"


def test_variables_that_name_a_place_are_neither_held_nor_redacted():
    from swetui.handover import secret_variables

    environ = {"TIKTOKEN_CACHE_DIR": "/home/u/.cache/tiktoken", "SSLKEYLOGFILE": "/tmp/keys.log",
               "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/token", "GITHUB_TOKEN": "ghp_abcdef123",
               "OPENAI_BASE_URL": "http://localhost:8080/v1", "PATH": "/usr/bin"}
    # swetui keeps reading its tokenizer cache and TLS key log; the token and the provider
    # settings leave its environment.
    assert secret_variables(environ) == {"GITHUB_TOKEN": "ghp_abcdef123",
                                         "OPENAI_BASE_URL": "http://localhost:8080/v1"}
    store = SecretStore(environ)
    assert store.redact("cache in /home/u/.cache/tiktoken") == "cache in /home/u/.cache/tiktoken"
    # Commands still get none of them.
    assert set(scrubbed_environment(environ)) >= {"PATH"}
    assert not {"TIKTOKEN_CACHE_DIR", "GITHUB_TOKEN"} & set(scrubbed_environment(environ))
