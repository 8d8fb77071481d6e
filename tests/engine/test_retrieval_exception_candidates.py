"""A described request is not answered by an exception class: the class names a failure (a
name and a docstring), and the behaviour asked about is in the code that does the work. An
exception class is no candidate, whatever its docstring says; where it is raised still is."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.retrieval_spans import find_hits
from swetui.engine.symbols.lookup import Scored
from tests.engine.helpers import mapped_workspace

ERRORS = '''\
class TransportError(Exception):
    """Base of the transport's errors."""


class ReconnectError(TransportError):
    """The pool reconnects a dropped socket with backoff, and gives up after the last
    retry: raised when reconnecting a dropped socket keeps failing."""
'''
POOL = '''\
from errors import ReconnectError


def reconnect(socket, retries):
    """Open the socket again, waiting longer after each failure."""
    for attempt in range(retries):
        if socket.open():
            return socket
        socket.wait(2 ** attempt)
    raise ReconnectError(socket)


def close(socket):
    socket.shut()
'''
REQUEST = "How does the pool reconnect a dropped socket, and how long is the backoff?"


class EvenMeaning:
    """Closeness in meaning the same for every candidate (the model, undecided)."""

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        return [0.5] * len(candidates)


def test_an_exception_class_is_no_candidate_for_described_behaviour(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {"errors.py": ERRORS, "pool.py": POOL})
    for rerank in (EvenMeaning(), None):
        hits = find_hits(index, REQUEST, rerank=rerank)
        names = [hit.definition.qualname for hit in hits if hit.definition is not None]
        # its docstring says more of the request's words than the function does
        assert "ReconnectError" not in names
        assert names[:1] == ["reconnect"]


def test_a_named_exception_still_brings_where_it_is_raised(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {"errors.py": ERRORS, "pool.py": POOL})
    hits = find_hits(index, "When is ReconnectError raised?", rerank=EvenMeaning())
    assert [(hit.path, hit.definition.qualname) for hit in hits
            if hit.definition is not None][:1] == [("pool.py", "reconnect")]
