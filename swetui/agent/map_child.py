"""The symbol map's cold build in a child process: the screen's process never holds the
parse trees, the build's peak memory or the GIL while a large workspace is parsed; the child
writes the map's cache (`.swetui/symbols/map.sqlite`) and exits, and the session then loads
the map from it as a restart does.

`run` (`python -c RUN ROOT CACHE`) reads one JSON line on its standard input (the files in
context, parsed first, and the values to redact, as this session redacts them: they never
pass through the environment or the command line), prints `progress N M` as it goes,
`working` at least every `BEAT` seconds while it writes the cache and ranks the files (as
long as it has used CPU since the last line), and `done` at the end. It runs with the
environment commands get (no API keys), and ends when its standard input closes (the
session ended or was killed). A child that fails or is killed loses nothing: the files it
wrote are in the cache, and the session parses the rest itself."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from swetui.agent.sandbox.secret_files import secret_files
from swetui.agent.tools.shell import scrubbed_environment
from swetui.engine.symbols.symbol_map import NOT_BUILT, SymbolMap
from swetui.files import inside
from swetui.secrets import STORE

log = logging.getLogger(__name__)

RUN = "import sys; from swetui.agent.map_child import run; run(sys.argv[1:])"
"""The child's command (`-c`: run as a module, this module would be imported twice), run
with `-P` from `/`, never from the workspace: a `json.py` planted there must not be imported
(it would run unconfined), neither as the working folder nor through a relative entry of
PYTHONPATH (`.`, or an empty one)."""
STDERR_KEPT = 2_000
"""Characters of a failed child's error output kept for the log."""
STALL = 60.0
"""Seconds the child may go without a line (it prints one at least each `BEAT` while it
parses, and while it writes the cache and ranks the files if it works at them) before it
is taken for stuck, killed and the build done in the session: a file that hangs the parser
must not leave the session without a map for the rest of its life, and a ranking longer
than this (a very large workspace under load) must not be thrown away when nearly done."""
BEAT = 1.0
"""Seconds between two of the child's lines at most, while it works."""


class ChildFailed(Exception):
    """The child ended without finishing the build; the message says how, in a line."""


def child_environment(root: Path) -> dict[str, str]:
    """The commands' environment, with no PYTHONPATH entry inside the workspace (`export
    PYTHONPATH=$PWD/src` is common): a confined command may write there, and a `json.py` it
    planted in `src/` was imported by the next child, unconfined (found attacking). The
    child imports swetui from where it is installed."""
    env = scrubbed_environment()
    real_root = Path(os.path.realpath(root))
    kept = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep)
            if os.path.isabs(entry) and not inside(real_root, Path(os.path.realpath(entry)))]
    env.pop("PYTHONPATH", None)
    if kept:
        env["PYTHONPATH"] = os.pathsep.join(kept)
    return env


async def build_in_child(root: Path, cache_path: Path, first: Iterable[str],
                         on_progress: Callable[[int, int], None] = lambda _n, _m: None,
                         stall: float = STALL) -> None:
    """Run the build in a child process until it has written the cache. Raises ChildFailed
    (the child could not start, failed, was killed, or said nothing for `stall` seconds:
    it is killed then); cancelling this ends the child."""
    request = json.dumps({"first": sorted(first),
                          "redact": [[value, name] for value, name in STORE.redacted()]})
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-P", "-c", RUN, str(root), str(cache_path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=child_environment(root), cwd="/")
    except OSError as exc:
        raise ChildFailed(f"could not start ({exc.strerror or exc})") from exc
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(request.encode() + b"\n")
        with contextlib.suppress(ConnectionError):
            await process.stdin.drain()
        errors = asyncio.ensure_future(_read_all(process.stderr))
        finished = False
        while line := await _line_within(process, stall):
            words = line.decode("ascii", "replace").split()
            if words[:1] == ["progress"] and len(words) == 3 and \
                    all(word.isdigit() for word in words[1:]):
                on_progress(int(words[1]), int(words[2]))
            elif words == ["done"]:
                finished = True
        code = await process.wait()
        stderr = await errors
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    if code != 0 or not finished:
        if stderr.strip():
            log.warning("the symbol map's build process said: %s", stderr[-STDERR_KEPT:])
        how = f"was killed (signal {-code})" if code < 0 else \
            f"failed (exit status {code})" if code else "ended before it finished"
        raise ChildFailed(how)


async def _line_within(process: asyncio.subprocess.Process, stall: float) -> bytes:
    """The child's next line (empty at its end); ChildFailed, the child killed, when it
    says nothing for `stall` seconds."""
    assert process.stdout is not None
    try:
        return await asyncio.wait_for(process.stdout.readline(), stall)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        raise ChildFailed(f"made no progress for {stall:.0f} s and was stopped") from None


async def _read_all(stream: asyncio.StreamReader | None) -> str:
    return (await stream.read()).decode("utf-8", "replace") if stream is not None else ""


def _end_with_parent() -> None:
    """End this process when the session's end of standard input closes."""
    sys.stdin.buffer.read()
    os._exit(3)


_SAYING = threading.Lock()


def _say(line: str) -> None:
    """One whole line to the session (the heartbeat's thread speaks too: one write each)."""
    with _SAYING:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def _main_thread_cpu() -> Callable[[], float]:
    """A clock of the CPU time the main thread (the build) has used: the process's where a
    thread's own clock is not to be had."""
    try:
        clock = time.pthread_getcpuclockid(threading.main_thread().ident or 0)
        time.clock_gettime(clock)
    except (AttributeError, OSError):
        return time.process_time
    return lambda: time.clock_gettime(clock)


def _heartbeat(stop: threading.Event) -> None:
    """Say `working` each BEAT seconds in which the build used CPU. Run once the files are
    parsed: writing the cache and ranking them are bounded work on what was read, and may
    outlast the session's limit on a very large workspace; a build blocked there (waiting
    on a lock, a file) uses no CPU, says nothing and is still stopped. Never while it
    parses: a file can hang the parser in a loop that uses CPU for ever."""
    used = _main_thread_cpu()
    last = used()
    while not stop.wait(BEAT):
        now = used()
        if now > last:
            _say("working")
        last = now


class _Reporting(SymbolMap):
    """The map, printing its progress whenever it publishes what it has read so far, and at
    least every BEAT seconds (the session takes a silent child for stuck); once the files
    are parsed (its first `save`), a heartbeat while it works."""

    _said = 0.0
    _beating = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.done = threading.Event()
        """Set when the child has finished: the heartbeat stops."""

    def _publish(self, files: dict, skipped: dict) -> None:  # type: ignore[type-arg]
        if len(files) - self._published >= self.publish_every or \
                time.monotonic() - self._said >= BEAT:
            self._published = len(files)  # nothing is looked up here: no copies are made
            self._said = time.monotonic()
            _say(f"progress {len(files)} {self.total}")

    def save(self) -> None:
        if not self._beating:  # the build's last write: every file is parsed
            self._beating = True
            threading.Thread(target=_heartbeat, args=(self.done,), daemon=True).start()
        super().save()


def main(argv: list[str]) -> int:
    root, cache_path = Path(argv[0]), Path(argv[1])
    request = json.loads(sys.stdin.buffer.readline() or b"{}")
    STORE.register_many([(str(value), str(name)) for value, name in request.get("redact", [])])
    threading.Thread(target=_end_with_parent, daemon=True).start()
    symbols = _Reporting(root, cache_path=cache_path, exclude=secret_files(root))
    symbols.build([str(rel) for rel in request.get("first", [])])
    if NOT_BUILT in symbols.notes:
        return 1
    _say("ranking")
    symbols.index()  # ranks the files and keeps the ranks in the cache: the session loading
    # the map then does not rank them (the ranking is the highest memory of a load)
    symbols.done.set()
    _say("done")
    return 0


def run(argv: list[str]) -> None:
    """The child's entry: `main`, then an exit that does not wait for the thread reading
    standard input."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
