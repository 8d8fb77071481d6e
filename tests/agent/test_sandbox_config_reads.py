"""What the sandbox reads of git's configs before every confined command. It followed the
user's configs' includes twice (for credentials and for what to grant, each with its own
1 MiB budget) and read every config again for every command: with a large
`~/.gitconfig.local` and a repository's config including another, about 2 MiB a command
(3 MiB for the first). Now the includes are followed once, with one budget, and a config
unchanged since the last command is not read again."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from swetui.agent.sandbox import Sandbox, git_includes, scrubbed
from swetui.files import read_regular


def test_each_config_is_read_once_per_change_not_once_per_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        monkeypatch.delenv(name, raising=False)
    aliases = "[alias]\n" + "".join(f"\ta{n} = !echo {'x' * 100}\n" for n in range(2000))
    local = home / ".gitconfig.local"
    local.write_text(aliases)
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig.local\n")
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    (root / ".git" / "team.inc").write_text(aliases.replace("\ta", "\tb"))
    with (root / ".git" / "config").open("a") as config:
        config.write("[include]\n\tpath = team.inc\n")
    read: dict[str, int] = {}

    def counted(path: str, limit: int | None, **options: object) -> tuple[bytes, int]:
        data, size = read_regular(path, limit, **options)  # type: ignore[arg-type]
        read[str(path)] = read.get(str(path), 0) + len(data)
        return data, size

    for module in (git_includes, scrubbed):
        monkeypatch.setattr(module, "read_regular", counted)
    # caches of their own (other tests in this process filled the shared ones: full, they
    # are emptied, which could fall between this test's two commands)
    monkeypatch.setattr(git_includes, "_INCLUDES", {})
    monkeypatch.setattr(scrubbed, "_SCRUBBED", {})
    sandbox = Sandbox(root, cover=())
    try:
        granted = sandbox_grants(sandbox)
        first = dict(read)
        assert str(local) in granted  # git in the sandbox reads what the user's config includes
        # each config at most twice: once for its includes, once for its credentials
        assert read[str(local)] <= 2 * local.stat().st_size, first
        assert read[str(root / ".git" / "team.inc")] <= 2 * local.stat().st_size, first
        read.clear()
        sandbox_grants(sandbox)
        assert sum(read.values()) == 0, read  # nothing changed: nothing read again
        local.write_text(aliases.replace("echo", "true"))
        sandbox_grants(sandbox)
        assert read.get(str(local), 0) >= local.stat().st_size  # a change is read
    finally:
        sandbox.close()


def sandbox_grants(sandbox: Sandbox) -> list[str]:
    """The files the confined command would be granted (what `argv` prepares for it)."""
    argv = sandbox.argv("true", "/bin/bash", confine=True)
    return list(json.loads(argv[argv.index("--") - 1])["readable_files"])
