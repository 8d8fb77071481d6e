"""A small async event bus: the engine and the agent publish typed events, listeners react.

Listeners are plain callables (sync) so publishing never awaits; a UI bridges them into
its own message loop. A failing listener is logged and never breaks the publisher.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

log = logging.getLogger(__name__)

Listener = Callable[[BaseModel], Any]


class EventBus:
    """Publish/subscribe for pydantic events."""

    def __init__(self) -> None:
        self._listeners: list[tuple[type[BaseModel] | None, Listener]] = []

    def subscribe(self, listener: Listener,
                  kind: type[BaseModel] | None = None) -> Callable[[], None]:
        """Call `listener` for every event (or only events of `kind`); returns an unsubscribe."""
        entry = (kind, listener)
        self._listeners.append(entry)

        def unsubscribe() -> None:
            if entry in self._listeners:
                self._listeners.remove(entry)

        return unsubscribe

    def publish(self, event: BaseModel) -> None:
        for kind, listener in list(self._listeners):
            if kind is not None and not isinstance(event, kind):
                continue
            try:
                listener(event)
            except Exception:  # a broken listener must not break the engine
                log.exception("event listener failed on %s", type(event).__name__)
