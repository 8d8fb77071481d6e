"""A shortlist points at a class's member, not at the class: a class's behaviour is in its
methods, and the line listed is where to read. The member is the best ranked of the class's
members among the candidates, else the one the request's words match best."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.retrieval_shortlist import shortlist
from swetui.engine.retrieval_spans import find_hits
from swetui.engine.symbols.lookup import Scored
from swetui.engine.symbols.symbol_map import SymbolIndex
from tests.engine.helpers import mapped_workspace

DECODER = '''\
class ArchiveReader_{n}:
    """Reads archives compressed with zstandard, picking the codec library installed."""

    def __init__(self):
        self.codec = None

    def pick_codec(self):
        try:
            import zstandard_cffi as codec
        except ImportError:
            import zstandard as codec
        self.codec = codec

    def close(self):
        self.codec = None
'''
REQUEST = "Which zstandard codec library is picked when reading compressed archives?"


class EvenMeaning:
    """Closeness in meaning the same for every candidate (the model, undecided)."""

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        return [0.5] * len(candidates)


def _workspace(root: Path, count: int = 4) -> SymbolIndex:
    return mapped_workspace(root, {f"pkg/reader_{n}.py": DECODER.format(n=n)
                                   for n in range(count)})


def test_a_class_is_listed_by_the_member_the_request_points_to(tmp_path: Path) -> None:
    index = _workspace(tmp_path)
    hits = find_hits(index, REQUEST, rerank=EvenMeaning())
    assert hits and all(hit.how == "candidate" for hit in hits)
    made = shortlist(tmp_path, index, hits)
    assert made is not None
    _heading, *entries = made.block.split("\n")
    assert entries
    for entry in entries:
        where, _, said = entry.partition(": ")
        path, lines = where.rsplit(":", 1)
        first = int(lines.split("-")[0])
        shown = (tmp_path / path).read_text().split("\n")[first - 1]
        # the lines listed are the method doing the work, not the class's
        assert shown.strip() == "def pick_codec(self):" and said.startswith("def ")
        assert lines == "7-12" and entry.endswith(".pick_codec")
    # one entry per class: its other members are inside what the entry stands for
    assert len(entries) == len({hit.path for hit in hits})
