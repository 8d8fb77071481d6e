"""Work a session runs beside its turns (restored approvals, closing an old provider),
started at once when an event loop runs, else deferred until `start`."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class BackgroundTasks:
    """Keeps its tasks referenced until they finish, and cancels them on close."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._deferred: list[Coroutine[Any, Any, Any]] = []

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coroutine)
        except RuntimeError:  # no loop yet (opened before the app runs): start later
            self._deferred.append(coroutine)
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start(self) -> None:
        """Start what was deferred until an event loop runs."""
        deferred, self._deferred = self._deferred, []
        for coroutine in deferred:
            self.spawn(coroutine)

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()
