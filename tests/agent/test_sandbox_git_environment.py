"""git settings given through the environment (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/
`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`: CI runners and containers set them, an
`http.extraheader` with a token among them). The environment rule judged each variable by
its name: it took `GIT_CONFIG_KEY_0` for a secret and dropped it, and kept
`GIT_CONFIG_VALUE_0`. So every git command failed ("missing config key GIT_CONFIG_KEY_0")
and the header's token was in every command's environment (`env` printed it). Now the
settings without a credential reach the command, numbered again, and git works."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.sandbox import Sandbox, probe
from swetui.agent.tools.shell import scrubbed_environment
from swetui.git_settings import split_git_environment

TOKEN = "eC1hY2Nlc3MtdG9rZW46Z2hwX3BsYW50ZWRFTlZJUk9O"  # base64 of a user:token pair
CI = {"GIT_CONFIG_COUNT": "3",
      "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*",
      "GIT_CONFIG_KEY_1": "http.https://github.com/.extraheader",
      "GIT_CONFIG_VALUE_1": f"AUTHORIZATION: basic {TOKEN}",
      "GIT_CONFIG_KEY_2": "user.name", "GIT_CONFIG_VALUE_2": "CI Runner",
      "GIT_CONFIG_PARAMETERS": f"'core.abbrev'='12' 'http.extraheader'='AUTHORIZATION: "
                               f"bearer {TOKEN}'"}


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
def test_git_runs_with_the_settings_the_environment_gives_without_their_tokens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in CI.items():
        monkeypatch.setenv(name, value)
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    env = scrubbed_environment()
    done = subprocess.run(["git", "config", "--list"], cwd=root, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert "user.name=CI Runner" in done.stdout and "core.abbrev=12" in done.stdout
    assert "safe.directory=*" in done.stdout
    sandbox = Sandbox(root, cover=())
    try:  # as the bash tool runs a command: the commands' environment
        done = subprocess.run(sandbox.argv("env; git config --list; git status --short",
                                           "/bin/bash", confine=True), cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)
    finally:
        sandbox.close()
    assert done.returncode == 0, done.stderr
    assert "user.name=CI Runner" in done.stdout and "GIT_CONFIG_KEY_0=safe.directory" in done.stdout
    assert TOKEN not in done.stdout + done.stderr


_KEYS = st.sampled_from(["user.name", "http.extraheader", "core.abbrev", "url.x.insteadof",
                         "github.token", "credential.helper", "remote.o.url"])
_VALUES = st.sampled_from(["Ada", "AUTHORIZATION: bearer abc", "12",
                           "https://ci:pw-123456789@host/x", "https://host/x", "store"])


@given(st.lists(st.tuples(_KEYS, _VALUES), max_size=6))
def test_the_kept_settings_are_numbered_from_zero_and_hold_no_credential(
        pairs: list[tuple[str, str]]) -> None:
    environ = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for number, (key, value) in enumerate(pairs):
        environ |= {f"GIT_CONFIG_KEY_{number}": key, f"GIT_CONFIG_VALUE_{number}": value}
    env, redacted = split_git_environment(environ)
    count = int(env["GIT_CONFIG_COUNT"])
    assert set(env) == {"GIT_CONFIG_COUNT", *(f"GIT_CONFIG_{part}_{n}" for n in range(count)
                                              for part in ("KEY", "VALUE"))}
    kept = [(env[f"GIT_CONFIG_KEY_{n}"], env[f"GIT_CONFIG_VALUE_{n}"]) for n in range(count)]
    assert all(pair in pairs for pair in kept)
    assert not any(key in ("http.extraheader", "github.token") or "pw-123456789" in value
                   for key, value in kept)
    assert ("user.name", "Ada") not in pairs or ("user.name", "Ada") in kept
    # what is not kept is redacted: a credential setting's value, a URL's password
    words = {word for word, _ in redacted}
    for key, value in pairs:
        if key in ("http.extraheader", "github.token") and len(value) >= 8:
            assert value in words, (key, value)
        if "pw-123456789" in value:
            assert "pw-123456789" in words
    assert not words & {"Ada", "store", "user.name", "remote.o.url"}
    if not any(key in ("http.extraheader", "github.token") for key, _ in pairs):
        assert "https://host/x" not in words  # a plain URL is no credential


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
def test_a_config_the_environment_includes_is_read_by_git_in_the_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CI runner's `GIT_CONFIG_KEY_0=include.path` (or an `include.path` in
    `GIT_CONFIG_PARAMETERS`) names a config outside the workspace: it was not granted, and
    every git command in the sandbox stopped ("unable to parse command-line config")."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    ci = tmp_path / "runner" / "ci.gitconfig"
    ci.parent.mkdir()
    ci.write_text(f"[user]\n\tname = Runner From Include\n[http]\n\textraheader = "
                  f"AUTHORIZATION: bearer {TOKEN}\n")
    (home / "abbrev.gitconfig").write_text("[core]\n\tabbrev = 11\n")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "include.path")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(ci))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'include.path'='~/abbrev.gitconfig'")
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    sandbox = Sandbox(root, cover=())
    try:
        done = subprocess.run(sandbox.argv("git config user.name; git config core.abbrev; "
                                           f"git status --short; cat {ci}", "/bin/bash",
                                           confine=True), cwd=root, env=scrubbed_environment(),
                              capture_output=True, text=True, timeout=120)
    finally:
        sandbox.close()
    assert "Runner From Include\n11\n" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0 and TOKEN not in done.stdout + done.stderr


def test_a_setting_named_in_secret_env_is_held_as_named() -> None:
    """`secret_env = ["GIT_CONFIG_VALUE_1"]`: that setting reaches no command and its value is
    redacted; its key (`user.email`) was redacted too, from every output that named it."""
    environ = {"GIT_CONFIG_COUNT": "2",
               "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "Runner Person",
               "GIT_CONFIG_KEY_1": "user.email", "GIT_CONFIG_VALUE_1": "runner@example.org"}
    kept, redacted = split_git_environment(environ, ("GIT_CONFIG_VALUE_1",))
    assert kept == {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name",
                    "GIT_CONFIG_VALUE_0": "Runner Person"}
    assert redacted == [("runner@example.org", "GIT_CONFIG_VALUE_1")]
