"""Settings given to git through the environment (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/
`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`; CI runners set them), through the real start-up
path: `swetui run` hands the secrets over and re-executes itself, then runs the command in
the sandbox. The handover judged these variables by their names (`GIT_CONFIG_KEY_0` holds
"KEY"): it took every key out of the environment and redacted its value (`user.name`), so
no command saw any of the settings; and an `http.extraheader` token in a
`GIT_CONFIG_VALUE_n` stayed in swetui's own environment. Now a setting without a credential
reaches the command unchanged, and one with a credential is out of swetui's environment,
the command's, what is shown and what is written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from swetui.agent.sandbox import probe
from tests.test_handover import ANCESTORS, OFFLINE_AUTO, environment, environments, swetui
from tests.test_handover import tool_output as last_output

TOKEN = "eC1hY2Nlc3MtdG9rZW46Z2hwX3BsYW50ZWRIQU5ET1ZFUg"  # base64 of a user:token pair
BEARER = "cGxhbnRlZC1iZWFyZXItZm9yLXBhcmFtZXRlcnM"
CI = {"GIT_CONFIG_COUNT": "4",
      "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "CI Runner Person",
      "GIT_CONFIG_KEY_1": "http.https://github.com/.extraheader",
      "GIT_CONFIG_VALUE_1": f"AUTHORIZATION: basic {TOKEN}",
      "GIT_CONFIG_KEY_2": "safe.directory", "GIT_CONFIG_VALUE_2": "*",
      "GIT_CONFIG_KEY_3": "user.email", "GIT_CONFIG_VALUE_3": "runner@example.org",
      "GIT_CONFIG_PARAMETERS": f"'core.abbrev'='12' 'http.extraheader'='AUTHORIZATION: "
                               f"bearer {BEARER}'"}


def repository(tmp_path: Path, config: str = "") -> tuple[Path, Path]:
    """(a git workspace holding a file with both tokens, a config home)."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    (root / "leak.txt").write_text(f"header {TOKEN} and {BEARER}\n")
    home = tmp_path / "config"
    (home / "swetui").mkdir(parents=True)
    (home / "swetui" / "config.toml").write_text(config)
    return root, home


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
def test_a_confined_command_gets_git_settings_from_the_environment_without_their_tokens(
        tmp_path: Path) -> None:
    root, home = repository(tmp_path)
    command = ("git config --get user.name; git config --get core.abbrev; "
               "git config --get-all http.https://github.com/.extraheader; "
               "git config --get http.extraheader; echo email=$(git config user.email); "
               "env | grep ^GIT_CONFIG; git status --short; cat leak.txt")
    done = swetui("run", f'run "{command}"', *OFFLINE_AUTO, cwd=root,
                  env=environment(home, **CI))
    assert done.returncode == 0, done.stderr
    shown = last_output(root)
    # The settings without a credential reach the command as they were set.
    assert "\nCI Runner Person\n12\n" in shown and "email=runner@example.org" in shown, shown
    assert "GIT_CONFIG_KEY_0=user.name" in shown and "?? leak.txt" in shown, shown
    # Their names and values are not taken for secrets; the tokens, read from a file, are.
    assert "git config --get user.name;" in shown, shown
    assert shown.count("[redacted: GIT_CONFIG_") == 2, shown
    # The credentials reach neither the command, nor the model's view, nor the disk.
    for token in (TOKEN, BEARER):
        assert token not in done.stdout + done.stderr
        for path in (root / ".swetui").rglob("*"):
            assert not path.is_file() or token.encode() not in path.read_bytes(), path


def test_swetuis_own_environment_keeps_the_settings_and_loses_the_tokens(
        tmp_path: Path) -> None:
    """Unconfined (the sandbox off: the worst case), a command reads every ancestor's
    environment: swetui's holds the settings without a credential, numbered from 0."""
    root, home = repository(tmp_path, 'sandbox = "off"\n')
    done = swetui("run", ANCESTORS, *OFFLINE_AUTO, cwd=root, env=environment(home, **CI))
    assert done.returncode == 0, done.stderr
    shown = last_output(root)
    assert TOKEN not in shown and BEARER not in shown
    own = environments(shown)
    [swetuis] = [environ for environ in own.values() if "SWETUI_SECRETS_FD" in environ]
    assert {name: value for name, value in swetuis.items() if name.startswith("GIT_CONFIG_")} \
        == {"GIT_CONFIG_COUNT": "3", "GIT_CONFIG_KEY_0": "user.name",
            "GIT_CONFIG_VALUE_0": "CI Runner Person", "GIT_CONFIG_KEY_1": "safe.directory",
            "GIT_CONFIG_VALUE_1": "*", "GIT_CONFIG_KEY_2": "user.email",
            "GIT_CONFIG_VALUE_2": "runner@example.org",
            "GIT_CONFIG_PARAMETERS": "'core.abbrev'='12'"}  # as given
