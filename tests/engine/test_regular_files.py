"""Only regular files are read, never blocking: FIFOs, devices, sockets and links to them
are refused with a clear message by every part that reads the workspace."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from swetui.config import ConfigError, load_settings
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Source
from swetui.engine.project_memory import build_project_memory
from swetui.engine.retrieval import retrieve
from swetui.engine.sources import memory_items, read_text_file
from swetui.engine.watcher import apply_change, refresh
from swetui.files import NotRegularFile, open_regular, read_regular, read_small_text


def finishes(work: Callable[[], Any]) -> Any:
    """Run `work` in a thread and return its result (or raise its exception); a call that
    blocks (a FIFO opened for reading waits for a writer forever) fails the test instead of
    hanging the suite."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the read blocked"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Path]:
    """A workspace holding every kind of file that is not a regular one."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ok.txt").write_text("needle in a regular file\n")
    os.mkfifo(root / "pipe")
    os.symlink("/dev/zero", root / "zero")
    os.symlink("/dev/stdin", root / "stdin")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    yield root
    server.close()


@pytest.mark.parametrize(("name", "kind"), [("pipe", "a FIFO"), ("zero", "a character device"),
                                            ("sock", "a socket")])
def test_open_regular_refuses_without_blocking(hostile: Path, name: str, kind: str):
    with pytest.raises(NotRegularFile) as refused:
        finishes(lambda: open_regular(hostile / name, name=name))
    assert str(refused.value) == f"{name} is {kind}, not a regular file; not read"


def test_a_link_to_stdin_and_a_directory_are_refused(hostile: Path):
    with pytest.raises(NotRegularFile):
        finishes(lambda: open_regular(hostile / "stdin"))
    with pytest.raises(NotRegularFile, match="is a directory"):
        open_regular(hostile)


def test_a_link_is_refused_where_none_may_be_followed(hostile: Path):
    os.symlink("ok.txt", hostile / "link")
    assert read_regular(hostile / "link", 100)[0].startswith(b"needle")
    with pytest.raises(NotRegularFile, match="link is a symbolic link"):
        read_regular(hostile / "link", 100, name="link", follow_symlinks=False)


def test_a_sparse_gigabyte_is_capped_not_read_whole(tmp_path: Path):
    big = tmp_path / "big"
    with open(big, "wb") as handle:
        handle.truncate(1 << 30)
    data, size = read_regular(big, 4096)
    assert len(data) == 4096 and size == 1 << 30
    assert read_text_file(big, 4096) is None  # zeros: binary
    with pytest.raises(OSError, match="larger than"):
        read_small_text(big)


def test_a_five_megabyte_line_and_invalid_utf8_are_text_with_notes(tmp_path: Path):
    line = tmp_path / "line.txt"
    line.write_bytes(b"x" * (5 << 20))
    loaded = read_text_file(line, 64_000)
    assert loaded is not None and len(loaded.text) == 64_000
    assert "cut to the first 64,000 of 5,242,880 bytes" in loaded.notes
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9 \xff\xfe")
    loaded = read_text_file(latin, 64_000)
    assert loaded is not None and loaded.text == "caf\ufffd \ufffd\ufffd"


def test_memory_files_that_are_fifos_or_lead_outside_are_reported_not_read(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret_access_key = planted\n")
    os.mkfifo(root / "AGENTS.md")
    os.symlink(secret, root / "CLAUDE.md")
    os.symlink("/dev/zero", root / "SWETUI.md")
    items, warnings = finishes(lambda: memory_items(root))
    assert items == []
    assert warnings == ["SWETUI.md: a symbolic link leading outside the workspace; not read",
                        "AGENTS.md is a FIFO, not a regular file; not read",
                        "CLAUDE.md: a symbolic link leading outside the workspace; not read"]


def test_retrieval_names_a_fifo_and_greps_past_it(hostile: Path):
    engine = ContextEngine()
    result = finishes(lambda: retrieve(hostile, 'read pipe.log and find "needle"', engine,
                                       turn=1))
    assert any("ok.txt:1:" in item.content for item in result.items)
    os.mkfifo(hostile / "pipe.log")
    result = finishes(lambda: retrieve(hostile, "read pipe.log please", engine, turn=2))
    assert "pipe.log is a FIFO, not a regular file; not read" in result.summary
    assert not [item for item in result.items if item.kind is ItemKind.FILE]


def test_watcher_marks_an_item_stale_when_its_file_becomes_a_fifo(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("first\n")
    engine = ContextEngine()
    engine.add(ContextItem(id="f1", kind=ItemKind.FILE, layer=Layer.TASK, title="notes.txt",
                           content="first\n", source=Source(path="notes.txt")))
    (root / "notes.txt").unlink()
    os.mkfifo(root / "notes.txt")
    finishes(lambda: apply_change(engine, root, "notes.txt", deleted=False))
    item = engine.get("f1")
    assert item.state is ItemState.STALE
    assert item.stale_reason == "now a FIFO; not read"
    with pytest.raises(ValueError, match="notes.txt is a FIFO"):
        finishes(lambda: refresh(engine, root, "f1"))


def test_watcher_does_not_follow_a_file_swapped_for_a_link_outside(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "id_rsa").write_text("PRIVATE KEY\n")
    (root / "notes.txt").write_text("first\n")
    engine = ContextEngine()
    engine.add(ContextItem(id="f1", kind=ItemKind.FILE, layer=Layer.TASK, title="notes.txt",
                           content="first\n", source=Source(path="notes.txt")))
    (root / "notes.txt").unlink()
    os.symlink(tmp_path / "id_rsa", root / "notes.txt")
    apply_change(engine, root, "notes.txt", deleted=False)
    assert "PRIVATE KEY" not in engine.get("f1").content
    assert engine.get("f1").state is ItemState.STALE


def test_project_memory_skips_a_fifo_readme(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    os.mkfifo(root / "README.md")
    os.mkfifo(root / "pyproject.toml")
    text = finishes(lambda: build_project_memory(root))
    assert "(no README or package description found" in text


def test_a_fifo_config_file_is_a_clear_error_or_ignored(tmp_path: Path):
    root = tmp_path / "ws"
    (root / ".swetui").mkdir(parents=True)
    os.mkfifo(root / ".swetui" / "config.toml")  # the workspace's: never used, never waited on
    assert finishes(lambda: load_settings(root, user_file=tmp_path / "none.toml")).mode == "ask"
    os.mkfifo(tmp_path / "user.toml")
    with pytest.raises(ConfigError, match="user.toml is a FIFO, not a regular file"):
        finishes(lambda: load_settings(root, user_file=tmp_path / "user.toml"))


def test_swetui_init_and_context_finish_next_to_a_fifo(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    os.mkfifo(root / "README.md")
    os.mkfifo(root / "AGENTS.md")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    init = subprocess.run([sys.executable, "-m", "swetui", "init", str(root)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert init.returncode == 0, init.stderr
    assert "(no README or package description found" in (root / "SWETUI.md").read_text()
    context = subprocess.run([sys.executable, "-m", "swetui", "context", str(root)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert context.returncode == 0, context.stderr
    assert "AGENTS.md is a FIFO, not a regular file; not read" in context.stdout + context.stderr


def test_swetui_init_never_writes_through_a_link_named_swetui_md(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside.txt"
    os.symlink(outside, root / "SWETUI.md")  # dangling: the file does not exist yet
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    refused = subprocess.run([sys.executable, "-m", "swetui", "init", str(root)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "exists" in refused.stderr
    forced = subprocess.run([sys.executable, "-m", "swetui", "init", str(root), "--force"],
                            env=env, capture_output=True, text=True, timeout=120)
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert not outside.exists()
    assert not (root / "SWETUI.md").is_symlink()
    assert "project memory" in (root / "SWETUI.md").read_text()
