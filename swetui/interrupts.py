"""Ctrl+C always ends swetui: blocking work runs in daemon threads, and a second ctrl+c ends
the process at once even when one of them is stuck in the kernel.

`asyncio.run` would wait forever at exit for a default-executor thread that never returns
(a read of a FIFO, a runaway regular expression): the process then ignores every further
ctrl+c. `event_loop()` gives each blocking call its own daemon thread instead, and its
shutdown waits only a moment for them; `CtrlC` makes the first ctrl+c interrupt the work and
the second one exit with code 130 without waiting for anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from types import FrameType
from typing import Any, ParamSpec, TypeVar

EXIT_INTERRUPTED = 130
SHUTDOWN_GRACE = 2.0
"""Seconds an exiting swetui gives running worker threads to finish (an edit being written)."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


class DaemonThreads(ThreadPoolExecutor):
    """An executor running each call in its own daemon thread: a call that never returns
    cannot keep the process alive, and shutdown waits at most `grace` seconds. (A
    `ThreadPoolExecutor` only by type, which asyncio requires of a default executor: none of
    its pool threads, which Python joins at exit, are ever started.)"""

    def __init__(self, grace: float = SHUTDOWN_GRACE) -> None:
        super().__init__(max_workers=1, thread_name_prefix="swetui-unused")
        self.grace = grace
        self._threads: set[threading.Thread] = set()
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args,  # type: ignore[override]
               **kwargs: _P.kwargs) -> Future[_T]:
        future: Future[_T] = Future()

        def work() -> None:
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = fn(*args, **kwargs)
                    except BaseException as exc:
                        future.set_exception(exc)
                    else:
                        future.set_result(result)
            finally:
                with self._lock:
                    self._threads.discard(threading.current_thread())

        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new work after shutdown")
            thread = threading.Thread(target=work, name="swetui-worker", daemon=True)
            self._threads.add(thread)
        thread.start()
        return future

    @property
    def busy(self) -> int:
        """Threads still running a call."""
        with self._lock:
            return len(self._threads)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        if not wait:
            return
        deadline = time.monotonic() + self.grace
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))


def event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop whose `to_thread`/`run_in_executor` calls run in `DaemonThreads`."""
    loop = asyncio.new_event_loop()
    loop.set_default_executor(DaemonThreads())
    return loop


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left, let worker threads finish for a moment, close the loop."""
    try:
        tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


def run_interruptibly(main: Coroutine[Any, Any, _T], *, notice: str = "") -> _T:
    """Run `main` to completion on an `event_loop()`: the first ctrl+c cancels it (it may
    close cleanly), a second ends the process with 130 at once (see `CtrlC`)."""
    loop = event_loop()
    task = loop.create_task(main)
    ctrl_c = CtrlC(lambda: loop.call_soon_threadsafe(task.cancel), notice=notice)
    with ctrl_c.installed():
        try:
            return loop.run_until_complete(task)
        finally:
            close_loop(loop)


def quit_now(code: int = EXIT_INTERRUPTED) -> None:
    """End the process at once (output flushed as far as possible), whatever threads do."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a write interrupted mid-way cannot flush
            stream.flush()
    os._exit(code)


class CtrlC:
    """SIGINT handling: the first one calls `first` (interrupt the work), any further one
    ends the process with code 130 (`quit_now`). A Python-level handler runs even while the
    main thread is blocked in a system call, unlike the event loop's."""

    def __init__(self, first: Callable[[], object], notice: str = "") -> None:
        self.first = first
        self.notice = notice
        self.count = 0

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.count > 1:
            quit_now(EXIT_INTERRUPTED)
        if self.notice:
            with contextlib.suppress(OSError):
                os.write(sys.stderr.fileno(), f"\n{self.notice}\n".encode())
        self.first()

    @contextlib.contextmanager
    def installed(self) -> Iterator[CtrlC]:
        """Handle SIGINT this way for the duration (only in the main thread)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous: Any = signal.signal(signal.SIGINT, self)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, previous)
