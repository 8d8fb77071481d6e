import pytest

from swetui.config import ConfigError, load_settings
from swetui.engine.workspace import budget_settings
from tests.trusted import trust_workspace


def test_defaults_without_files(tmp_path):
    settings = load_settings(tmp_path, user_file=tmp_path / "none.toml")
    # The window is unset (the server says, else 256,000), and so are the budgets that scale.
    assert settings.context_limit is None and settings.compaction_threshold == 0.8
    assert budget_settings(settings).limit == 256_000
    assert budget_settings(settings).reserve == 16_000


def test_workspace_overrides_user(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text('mode = "auto"\ncontext_limit = 100000\n')
    (tmp_path / ".swetui").mkdir()
    (tmp_path / ".swetui" / "config.toml").write_text("context_limit = 50000\n")
    assert load_settings(tmp_path, user_file=user).context_limit == 100_000  # not trusted yet
    trust_workspace(tmp_path)
    settings = load_settings(tmp_path, user_file=user)
    assert settings.mode == "auto" and settings.context_limit == 50_000


def test_bad_value_names_file_line_and_field(tmp_path):
    (tmp_path / ".swetui").mkdir()
    path = tmp_path / ".swetui" / "config.toml"
    path.write_text('mode = "ask"\ncompaction_threshold = 2.0\n')
    trust_workspace(tmp_path)
    with pytest.raises(ConfigError) as error:
        load_settings(tmp_path, user_file=tmp_path / "none.toml")
    message = str(error.value)
    assert str(path) in message and "line 2" in message and "compaction_threshold" in message


def test_unknown_key_and_broken_toml(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text("colour = 'red'\n")
    with pytest.raises(ConfigError, match="colour: unknown setting"):
        load_settings(None, user_file=user)
    user.write_text("mode = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(None, user_file=user)


def test_a_relative_sandbox_read_place_is_refused_by_name(tmp_path):
    """`sandbox_read = ["../other"]` was left out unsaid (the commands needing it then fail
    with no word of why): the config names the file, the line and the setting."""
    path = tmp_path / "config.toml"
    path.write_text('sandbox_read = ["/opt/shared", "~/venvs", "../other"]\n')
    with pytest.raises(ConfigError) as error:
        load_settings(None, user_file=path)
    message = str(error.value)
    assert str(path) in message and "line 1" in message and "sandbox_read" in message \
        and "'../other'" in message, message
    path.write_text('sandbox_read = ["/opt/shared", "~/venvs"]\n')
    assert load_settings(None, user_file=path).sandbox_read == ["/opt/shared", "~/venvs"]
