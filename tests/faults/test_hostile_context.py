"""The hostile corpus through what reads files without the model asking: just-in-time
retrieval, project memory (`swetui context`), and `swetui run` printing what it found."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from swetui.agent.sandbox import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import MAX_FILE_BYTES, retrieve
from tests.faults.corpus import (
    FIVE_MB,
    OUTSIDE,
    SPARSE_SIZE,
    Corpus,
    build,
    run_child,
    swetui,
)


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return build(tmp_path)


def retrieved(root: Path, text: str) -> tuple[str, str]:
    """(everything retrieval would add to the request, its summary) for `text`."""
    result = retrieve(root, text, ContextEngine(), turn=1, exclude=secret_files(root))
    return "\n".join(item.title + "\n" + item.content for item in result.items), result.summary


@pytest.mark.parametrize("text", [
    "read outside.txt", "read up.txt", "show outside_dir/secret.txt",
    "read ../outside/secret.txt", "read ../../etc/hostname", "read /etc/hostname",
    "read zero.txt", "read stdin.txt", "read loop.txt", 'find "OUTSIDE-SECRET-7f3a"',
    "what's in outside_dir",
])
def test_retrieval_never_reads_outside_the_workspace(corpus: Corpus, text: str) -> None:
    content, summary = retrieved(corpus.root, text)
    assert OUTSIDE not in content.replace('"OUTSIDE-SECRET-7f3a"', "")
    assert "secret.txt:" not in content  # no grep hit from a file outside
    assert summary  # the user is told what was (not) retrieved


def test_retrieval_of_hostile_files_is_bounded_and_says_why(corpus: Corpus) -> None:
    content, summary = retrieved(corpus.root,
                                 "read sparse.txt, blob.bin, latin1.txt and oneline.txt")
    assert "blob.bin: binary file, not read" in summary
    assert "sparse.txt (cut at byte 10,500: binary data follows" in content
    assert "\x00" not in content
    assert f"oneline.txt (cut to the first {MAX_FILE_BYTES:,} of {FIVE_MB:,} bytes)" in content
    assert "latin1.txt (not valid UTF-8" in content
    assert len(content) < 3 * MAX_FILE_BYTES


def test_retrieval_naming_a_fifo_never_hangs(corpus: Corpus) -> None:
    result = run_child("""
        from pathlib import Path
        from swetui.engine.context import ContextEngine
        from swetui.engine.retrieval import retrieve
        got = retrieve(Path(sys.argv[1]), 'read pipe.txt and find "hello"', ContextEngine(),
                       turn=1)
        result = {"summary": got.summary, "paths": [i.source.path for i in got.items]}
    """, args=(str(corpus.root),))
    assert "pipe.txt" not in result["paths"]
    assert "hello" in str(result["summary"])


def test_retrieval_says_a_named_fifo_is_not_read(corpus: Corpus) -> None:
    _, summary = retrieved(corpus.root, "read pipe.txt")
    assert "pipe.txt is a FIFO" in summary


# -- project memory: what `swetui context` loads before anyone asks ---------------------------


def test_context_with_hostile_memory_files_is_bounded_and_warns(corpus: Corpus) -> None:
    root = corpus.root
    os.truncate(root / "sparse.txt", 0)
    (root / "SWETUI.md").symlink_to("sparse.txt")
    with open(root / "sparse.txt", "wb") as handle:  # 1 GB memory file, text then a hole
        handle.write(b"# Memory\n" * 2000)
        handle.truncate(SPARSE_SIZE)
    (root / "AGENTS.md").write_bytes(b"\x00\x01binary")
    (root / "CLAUDE.md").write_bytes("r\xe9sum\xe9\n".encode("latin-1"))
    done = swetui(root, "context", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    memory = {item["title"]: item["tokens"] for item in report["items"]
              if item["layer"] == "memory"}
    assert set(memory) == {"SWETUI.md", "CLAUDE.md"}
    assert memory["SWETUI.md"] < 10_000  # its text, not a gigabyte (nor its zeros)
    assert "SWETUI.md: cut at byte 18,000: binary data follows" in done.stderr
    assert "AGENTS.md: binary file, not used as memory" in done.stderr
    assert "CLAUDE.md: not valid UTF-8" in done.stderr


@pytest.mark.parametrize("name", ["AGENTS.md", ".swetui/memory/session_notes.md"])
def test_a_memory_file_linked_outside_never_reaches_the_context(corpus: Corpus,
                                                                name: str) -> None:
    link = corpus.root / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(corpus.outside / "secret.txt")  # a cloned repo's AGENTS.md -> ~/.aws/...
    done = swetui(corpus.root, "context", "--json")
    assert done.returncode == 0, done.stderr
    assert OUTSIDE not in done.stdout
    assert "outside the workspace" in done.stderr


def test_memory_files_that_are_fifos_or_devices_never_hang_and_are_named(corpus: Corpus) -> None:
    os.mkfifo(corpus.root / "CLAUDE.md")
    (corpus.root / "AGENTS.md").symlink_to("/dev/zero")
    done = swetui(corpus.root, "context", "--json")  # watched: a FIFO wait fails at once
    assert done.returncode == 0, done.stderr
    assert "CLAUDE.md is a FIFO" in done.stderr


# -- swetui run over the corpus ---------------------------------------------------------------


def test_run_lists_the_corpus_without_reaching_out(corpus: Corpus) -> None:
    done = swetui(corpus.root, "run", "list files")
    assert done.returncode == 0, done.stderr
    assert "outside_dir@" in done.stdout and OUTSIDE not in done.stdout


def test_run_never_prints_an_escape_from_a_file_name(corpus: Corpus) -> None:
    done = swetui(corpus.root, "run", "list files")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert "clip.txt" in done.stdout


def test_run_asked_to_read_a_fifo_finishes(corpus: Corpus) -> None:
    done = swetui(corpus.root, "run", "read pipe.txt")
    assert done.returncode == 0, done.stderr
    assert "pipe.txt is a FIFO" in done.stdout


def test_run_asked_to_read_through_a_link_outside_refuses(corpus: Corpus) -> None:
    done = swetui(corpus.root, "run", "read outside.txt")
    assert done.returncode == 0, done.stderr
    assert "outside the workspace" in done.stdout and OUTSIDE not in done.stdout
    log = next((corpus.root / ".swetui" / "sessions").glob("*.jsonl")).read_text()
    assert OUTSIDE not in log
