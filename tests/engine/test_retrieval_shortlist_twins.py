"""A shortlist's five places are few: an async twin of a place already listed
(`aiter_decoded` beside `iter_decoded`, `AsyncStream.read_decoded` beside
`Stream.read_decoded`) is the same behaviour, read with it, and takes no entry of its own;
the entry goes to the next likely place. So does a property's setter beside its getter (one
name, one place)."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.retrieval_shortlist import shortlist
from swetui.engine.retrieval_spans import find_hits
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.lookup import Relevance, Scored, _shortlisted, twins
from tests.engine.helpers import mapped_workspace

STREAMS = '''\
class Stream:
    def iter_decoded(self):
        """Yield the body's chunks with its content encodings undone."""
        yield from self.decoder.decode(self.raw)

    def read_decoded(self):
        """The whole body, with its content encodings undone."""
        return b"".join(self.iter_decoded())


class AsyncStream:
    async def aiter_decoded(self):
        """Yield the body's chunks with its content encodings undone."""
        async for chunk in self.raw:
            yield self.decoder.decode(chunk)

    async def read_decoded(self):
        """The whole body, with its content encodings undone."""
        return b"".join([c async for c in self.aiter_decoded()])
'''
DECODERS = '''\
def gzip_decoder():
    """A decoder undoing the gzip content encoding."""


def brotli_decoder():
    """A decoder undoing the br content encoding."""


def chain_decoders(names):
    """Undo several content encodings, the last applied first."""


def identity_decoder():
    """A decoder for a body with no content encoding."""
'''
REQUEST = "In what order are the content encodings of a body undone?"


class EvenMeaning:
    """Closeness in meaning the same for every candidate (the model, undecided)."""

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        return [0.5] * len(candidates)


def _definition(qualname: str, kind: str = "method") -> Definition:
    return Definition(qualname.rsplit(".", 1)[-1], qualname, kind, 1, 2)


def test_twins_are_the_sync_and_async_names_of_one_behaviour() -> None:
    assert twins(_definition("Stream.iter_decoded"), _definition("Stream.aiter_decoded"))
    assert twins(_definition("Client.send"), _definition("AsyncClient.send"))
    assert twins(_definition("Client.close"), _definition("AsyncClient.aclose"))
    assert not twins(_definition("Group.list_commands"),
                     _definition("MultiCommand.list_commands"))
    assert not twins(_definition("Stream.read"), _definition("Stream.read"))
    assert not twins(_definition("add", "function"), _definition("dd", "method"))


def test_a_shortlist_lists_one_of_two_twins_and_the_next_place(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {"streams.py": STREAMS, "decoders.py": DECODERS})
    hits = find_hits(index, REQUEST, rerank=EvenMeaning())
    assert hits and all(hit.how == "candidate" for hit in hits)
    made = shortlist(tmp_path, index, hits)
    assert made is not None
    listed = [hit.definition for hit in hits if hit.definition is not None]
    assert len(listed) == 5
    assert not any(twins(a, b) for a in listed for b in listed)
    # every behaviour is still there: each twin left out has its other half listed
    behaviours = {"iter_decoded", "read_decoded"}
    assert behaviours <= {d.name.removeprefix("a") for d in listed} | {
        d.name for d in listed}
    assert sum(d.qualname.endswith("_decoder") or d.qualname.endswith("_decoders")
               for d in listed) == 3


def test_of_two_twins_the_sync_one_is_listed_where_the_first_ranked(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {"streams.py": STREAMS, "decoders.py": DECODERS})
    by_name = {d.qualname: (rel, d) for rel, symbols in index.by_file.items()
               for d in symbols.definitions}
    order = ["AsyncStream.aiter_decoded", "chain_decoders", "Stream.iter_decoded",
             "gzip_decoder"]
    chosen = [(10.0 - n, *by_name[name]) for n, name in enumerate(order)]
    listed = _shortlisted(index, chosen, Relevance(index, REQUEST))
    assert [hit.definition.qualname for hit in listed if hit.definition is not None] == [
        "Stream.iter_decoded", "chain_decoders", "gzip_decoder"]


SETTINGS = '''\
class Session:
    @property
    def retry_backoff(self):
        """Seconds to wait before a request is retried."""
        return self._retry_backoff

    @retry_backoff.setter
    def retry_backoff(self, seconds):
        """Seconds to wait before a request is retried."""
        self._retry_backoff = seconds
'''


def test_a_property_getter_and_setter_take_one_entry(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {"session.py": SETTINGS, "decoders.py": DECODERS})
    by_start = sorted(((d.start, rel, d) for rel, symbols in index.by_file.items()
                       for d in symbols.definitions if d.name == "retry_backoff"),
                      key=lambda entry: entry[0])
    assert len(by_start) == 2  # the map keeps both
    others = [(rel, d) for rel, symbols in index.by_file.items() for d in symbols.definitions
              if "_decoder" in d.name]
    chosen = [(10.0 - n, rel, d) for n, (rel, d) in enumerate(
        [(rel, d) for _start, rel, d in by_start] + others)]
    listed = _shortlisted(index, chosen, Relevance(index, "How long is the retry backoff?"))
    names = [hit.definition.qualname for hit in listed if hit.definition is not None]
    assert names.count("Session.retry_backoff") == 1
    assert len(names) == 5  # the place it left goes to the next candidate
