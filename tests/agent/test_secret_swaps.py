"""A secret reached by a name that was innocent when it was checked: the file is swapped for
a hard link of `.env` between the check by name and the read (retrieval's named files, the
map's spans, its grep), or the hard link is made after swetui gathered the secret files
(the map's later updates, the read tools). What is read is judged on the file opened."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from swetui.agent.sandbox import secret_files
from swetui.agent.toolbox import Toolbox
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap
from tests.agent.conftest import tool_call

KEY = "sk-ant-planted-SWAPPED-0123456789abcdef"


class SwapAfterCheck:
    """The agent's rule, with an attacker who replaces `target` by a hard link of `.env`
    the moment the rule has judged it by its name (innocent then)."""

    def __init__(self, root: Path, target: str) -> None:
        self.root, self.target = root, target
        self.rule = secret_files(root)
        self.swapped = False

    def __call__(self, rel: str, walked: bool = False) -> bool:
        verdict = self.rule(rel, walked)
        if rel == self.target and not self.swapped:
            self.swapped = True
            os.unlink(self.root / rel)
            os.link(self.root / ".env", self.root / rel)
        return verdict

    def opened(self, info: os.stat_result) -> bool:
        return self.rule.opened(info)


def workspace(root: Path) -> Path:
    """`.env` and an innocent module with as many lines (so the map's line check, which
    drops a file changed since it was mapped, does not catch the swap by chance)."""
    (root / "src").mkdir()
    (root / ".env").write_text(f"STRIPE_TOKEN={KEY}\nREGION=eu\n")
    (root / "src" / "config.py").write_text("def rotate_token():\n    return 'STRIPE_TOKEN'\n")
    (root / "notes.txt").write_text("STRIPE_TOKEN is set in the vault\nask ops\n")
    return root


def sent(root: Path, text: str, rule: SwapAfterCheck, mapped: bool = True) -> str:
    index = None
    if mapped:
        symbols = SymbolMap(root, exclude=secret_files(root))
        symbols.build()
        index = symbols.index()
    result = retrieve(root, text, ContextEngine(), turn=1, exclude=rule, symbols=index,
                      semantic=None)
    assert rule.swapped, "the attack did not run"
    return "\n".join(item.content for item in result.items)


def test_a_span_file_swapped_after_its_check_is_not_read(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    assert KEY not in sent(root, "where is rotate_token defined?",
                           SwapAfterCheck(root, "src/config.py"))


def test_a_named_file_swapped_after_its_check_is_not_read(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    assert KEY not in sent(root, "read notes.txt", SwapAfterCheck(root, "notes.txt"),
                           mapped=False)


def test_a_grepped_file_swapped_after_the_walk_is_not_read(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    out = sent(root, "where is STRIPE_TOKEN used?", SwapAfterCheck(root, "notes.txt"),
               mapped=False)
    assert "src/config.py" in out and KEY not in out  # the grep ran, without the secret


def test_the_map_sees_a_hard_link_made_after_it_gathered_the_secrets(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    (root / "src" / "shared.py").write_text("def helper():\n    pass\n")
    os.link(root / "src" / "shared.py", root / "src" / "shared_copy.py")  # pnpm-style
    symbols = SymbolMap(root, exclude=secret_files(root))
    symbols.build()  # a file with two names: the secret files are gathered now
    assert "src/shared_copy.py" in symbols.index().by_file
    os.link(root / ".env", root / "src" / "creds.py")  # later, as the watcher reports it
    symbols.update(["src/creds.py"])
    assert "src/creds.py" not in symbols.index().by_file


async def test_the_read_tools_see_a_hard_link_made_after_an_earlier_read(
        toolbox: Toolbox, ws_root: Path) -> None:
    (ws_root / ".env").write_text(f"API_KEY={KEY}\n")
    (ws_root / "a.txt").write_text("one\n")
    os.link(ws_root / "a.txt", ws_root / "b.txt")
    first = await toolbox.run(tool_call("read_file", path="b.txt"))
    assert "one" in first.content  # the secret files were gathered for this read
    os.link(ws_root / ".env", ws_root / "later.txt")
    read = await toolbox.run(tool_call("read_file", path="later.txt"))
    found = await toolbox.run(tool_call("grep", pattern="API_KEY", path="."))
    assert read.is_error and KEY not in read.content and KEY not in found.content


def test_a_file_item_swapped_for_a_hard_link_of_env_is_not_read_again(tmp_path: Path) -> None:
    """`config.py` was read into the context; it is replaced by another name of `.env`
    (or a link to it): the watcher's re-read, a resumed session's and the user's refresh
    must not put the key in the item (it would be sent with the next request)."""
    from watchfiles import Change

    from swetui.engine.watcher import WorkspaceWatcher, changed_while_closed, refresh

    root = Path(os.path.realpath(tmp_path))
    (root / ".env").write_text(f"API_KEY={KEY}\n")
    (root / "config.py").write_text("DEBUG = True\n")
    (root / "settings.py").write_text("LEVEL = 1\n")
    engine = ContextEngine()
    rule = secret_files(root)
    for item in retrieve(root, "read config.py and settings.py", engine, turn=1,
                         exclude=rule, semantic=None).items:
        engine.add(item, reason="retrieved")
    os.unlink(root / "config.py")
    os.link(root / ".env", root / "config.py")
    os.unlink(root / "settings.py")
    os.symlink(".env", root / "settings.py")
    watcher = WorkspaceWatcher(root, engine, enabled=False, secrets=rule)
    watcher.apply([(Change.modified, str(root / "config.py")),
                   (Change.modified, str(root / "settings.py"))])
    changed_while_closed(engine, root, rule)
    for item in list(engine):
        if item.source.path:
            try:
                refresh(engine, root, item.id, rule)
            except ValueError:
                pass
    assert all(KEY not in item.content for item in engine)
    assert {item.stale_reason for item in engine if item.source.path} != {None}


def test_at_path_does_not_add_a_secret_by_any_name(tmp_path: Path) -> None:
    """`@notes.txt` when notes.txt is another name of `.env`, or `@.env` itself: the key
    would go to the model with the next request."""
    import pytest

    from swetui.agent.at_path import add_workspace_file

    root = Path(os.path.realpath(tmp_path))
    (root / ".env").write_text(f"API_KEY={KEY}\n")
    os.link(root / ".env", root / "notes.txt")
    (root / "readme.txt").write_text("hello\n")
    engine = ContextEngine()
    for name in ("notes.txt", ".env"):
        with pytest.raises(ValueError, match="may hold secrets"):
            add_workspace_file(engine, root, name)
    assert add_workspace_file(engine, root, "readme.txt").content == "hello\n"
    assert all(KEY not in item.content for item in engine)


async def test_an_edit_cannot_launder_a_hard_link_of_a_secret(make_toolbox: Callable[..., Toolbox],
                                                              ws_root: Path) -> None:
    """Found attacking: edit_file on `notes.txt`, another name of `.env`, rewrote it as a
    new file of that name holding the key, which read_file then returned."""
    box = make_toolbox("auto")
    (ws_root / ".env").write_text(f"API_KEY={KEY}\nREGION=eu\n")
    os.link(ws_root / ".env", ws_root / "notes.txt")
    edited = await box.run(tool_call("edit_file", path="notes.txt", old="REGION=eu",
                                     new="REGION=us"))
    written = await box.run(tool_call("write_file", path="notes.txt", content="x\n"))
    read = await box.run(tool_call("read_file", path="notes.txt"))
    assert edited.is_error and written.is_error
    assert all(KEY not in result.content for result in (edited, written, read))
    assert (ws_root / ".env").read_text().startswith(f"API_KEY={KEY}")
