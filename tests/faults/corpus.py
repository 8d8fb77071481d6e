"""The hostile corpus: a workspace built the way an attacker (or bad luck) would leave it,
and a way to run swetui code on it in a child process that can be told apart from a hang.

Everything outside the workspace that a file there leads to carries `OUTSIDE` in its text:
if that marker ever shows up in what a tool, retrieval or the context returns, something
reached out of the workspace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

OUTSIDE = "OUTSIDE-SECRET-7f3a"
"""Text of every file outside the workspace that a hostile link points at."""
ESCAPE_NAMES = ("\x1b]52;c;cHduZWQ=\x07clip.txt", "\x1b[2J\x1b]0;pwned\x07title.txt")
"""File names carrying OSC 52 (clipboard write), clear-screen and window-title sequences."""
SPARSE_SIZE = 1 << 30
FIVE_MB = 5 * 1024 * 1024
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Corpus:
    root: Path
    outside: Path


def build(tmp_path: Path) -> Corpus:
    """A workspace holding every hostile kind of file, next to an `outside` directory."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text(f"{OUTSIDE} file\n")
    (outside / "dir" / "secret.txt").write_text(f"{OUTSIDE} in a directory\n")
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    (root / "README.md").write_text("# Demo\n")
    links = {
        "outside.txt": outside / "secret.txt",           # a link to a file outside
        "outside_dir": outside / "dir",                  # a link to a directory outside
        "up.txt": Path("..") / "outside" / "secret.txt",  # relative, climbing out
        "zero.txt": Path("/dev/zero"),                   # endless
        "stdin.txt": Path("/dev/stdin"),                 # whatever swetui's stdin is
        "loop.txt": Path("loop2.txt"),                   # a symlink loop
        "loop2.txt": Path("loop.txt"),
    }
    for name, target in links.items():
        (root / name).symlink_to(target)
    os.mkfifo(root / "pipe.txt")
    with open(root / "sparse.txt", "wb") as handle:  # 1 GB: text first, then a hole
        handle.write(b"a line of text\n" * 700)
        handle.truncate(SPARSE_SIZE)
    (root / "blob.bin").write_bytes(bytes(range(256)) * 64)
    (root / "latin1.txt").write_bytes("café crème, 10 €\n".encode("latin-1", "replace") * 3)
    (root / "oneline.txt").write_bytes(b"var x=1;" * (FIVE_MB // 8))
    for name in ESCAPE_NAMES:
        (root / name).write_text("ordinary text in a file with a hostile name\n")
    return Corpus(root, outside)


# -- a child process that may hang ---------------------------------------------------------------

BLOCKED_ON_FIFO = frozenset({"wait_for_partner", "fifo_open", "pipe_read", "pipe_wait"})
"""Kernel wait channels of a thread stuck opening or reading a FIFO."""


class Hung(AssertionError):
    """The child blocked on a FIFO (or never finished)."""


def _blocked(pid: int) -> str | None:
    """The wait channel of a thread of `pid` stuck on a FIFO, if any."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/wchan") as handle:
                channel = handle.read().strip()
        except OSError:
            continue
        if channel in BLOCKED_ON_FIFO:
            return channel
    return None


def watched(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None,
            stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    """Run `argv` to the end, watching it: a thread stuck opening or reading a FIFO (seen in
    /proc, so no guessing from time) fails the test at once with `Hung`."""
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=stdin, text=True)
    deadline = time.monotonic() + 120  # a safety net only: a FIFO hang is seen in /proc
    try:
        while process.poll() is None:
            channel = _blocked(process.pid)
            if channel is not None:
                raise Hung(f"blocked on a FIFO ({channel})")
            if time.monotonic() > deadline:
                raise Hung("did not finish within 120 s")
            time.sleep(0.02)
        out, err = process.communicate()
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def run_child(code: str, *, memory_limit: int | None = None,
              args: tuple[str, ...] = ()) -> dict[str, object]:
    """Run `code` (which sets `result`, a JSON-able dict) in a fresh, `watched` interpreter;
    its result. `memory_limit` caps its address space, so reading a gigabyte into memory
    fails fast instead of swapping the machine."""
    program = textwrap.dedent("""
        import json, resource, sys
        limit = {limit}
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        result = {{}}
        try:
        {code}
        except MemoryError:
            result = {{"error": "MemoryError"}}
        print("\\0" + json.dumps(result))
    """).format(limit=memory_limit, code=textwrap.indent(textwrap.dedent(code), "    "))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = watched([sys.executable, "-c", program, *args], cwd=REPO, env=env)
    if "\0" not in done.stdout:
        raise AssertionError(f"the child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.rsplit("\0", 1)[1])


def swetui(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`swetui ARGS` in `root` with the offline model, watched."""
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and key != "SWETUI_MODEL"}
    return watched([sys.executable, "-m", "swetui", *args], cwd=root, env=env)
