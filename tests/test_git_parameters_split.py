"""`GIT_CONFIG_PARAMETERS` as git reads it: `'key'='value'` (what git itself writes for
its children since 2.31) keeps an `=` in the key (`url.https://bot:cGFzcw==@host/.insteadof`);
split as shell words and cut at the first `=`, such a key's password stayed in every
command's environment, and git refused the rewritten setting ("invalid key")."""

from __future__ import annotations

import os
import subprocess

from hypothesis import given
from hypothesis import strategies as st

from swetui.agent.tools.shell import scrubbed_environment

PASSWORD = "cGFzc3dvcmQxMjM0NQ=="
PARAMETERS = (f"'url.https://bot:{PASSWORD}@github.com/.insteadof'='https://github.com/' "
              "'core.abbrev'='12' 'user.name=A  B'")


def git_config(environ: dict[str, str]) -> str:
    return subprocess.run(["git", "config", "--list"], env=environ, capture_output=True,
                          text=True, check=True).stdout


def test_a_password_in_a_key_with_an_equals_sign_leaves_the_commands_environment() -> None:
    environ = {"PATH": os.environ["PATH"], "HOME": "/nonexistent",
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_PARAMETERS": PARAMETERS}
    assert PASSWORD in git_config(environ)  # git reads it
    given = scrubbed_environment(environ)
    assert PASSWORD not in repr(given)
    shown = git_config(given)  # and git still reads the rest, as written
    assert "core.abbrev=12" in shown and "user.name=A  B" in shown, shown


def test_settings_are_split_as_git_splits_them() -> None:
    from swetui.git_settings import parameter_settings
    assert parameter_settings("'a.b'='x=y' 'c.d=e=f' 'it'\\''s.k'='v' 'e.f'=") == [
        ("a.b", "x=y", True), ("c.d", "e=f", False), ("it's.k", "v", True), ("e.f", "", True)]
    assert parameter_settings("'a.b'x") is None and parameter_settings("'open") is None


@given(st.lists(st.tuples(st.text(min_size=1), st.text(), st.booleans()), max_size=5))
def test_what_is_quoted_as_git_writes_it_is_read_back(
        settings: list[tuple[str, str, bool]]) -> None:
    from swetui.git_settings import _quote, parameter_settings
    text = " ".join(f"{_quote(key)}={_quote(value)}" if separate else _quote(f"{key}={value}")
                    for key, value, separate in settings)
    expected = [(key, value, True) if separate else (*f"{key}={value}".split("=", 1), False)
                for key, value, separate in settings]
    assert parameter_settings(text) == [tuple(item) for item in expected]


def test_a_password_a_credential_helper_prints_leaves_the_commands_environment() -> None:
    """`credential.helper = !f() { echo password=…; }; f` is how scripts give git a
    password: the setting's name says nothing, its value says `password=`."""
    helper = "!f() { echo username=bot; echo \"password=Hunter2Hunter2xyz\"; }; f"
    environ = {"PATH": os.environ["PATH"], "GIT_CONFIG_COUNT": "2",
               "GIT_CONFIG_KEY_0": "credential.helper", "GIT_CONFIG_VALUE_0": helper,
               "GIT_CONFIG_KEY_1": "user.name", "GIT_CONFIG_VALUE_1": "Bot"}
    given = scrubbed_environment(environ)
    assert "Hunter2Hunter2xyz" not in repr(given)
    assert given["GIT_CONFIG_VALUE_0"] == "Bot"


def test_a_config_with_such_a_helper_is_shown_without_the_password() -> None:
    from swetui.agent.sandbox.scrubbed import _judged
    config = ("[user]\n\tname = Bot\n[credential]\n\thelper = "
              "\"!f() { echo password=Hunter2Hunter2xyz; }; f\"\n")
    clean, changed, covered = _judged(config.encode())
    assert not covered and changed  # the rest stays readable: git keeps its user.name
    assert b"Hunter2Hunter2xyz" not in clean and b"name = Bot" in clean
