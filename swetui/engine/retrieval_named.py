"""A long file the request names, in which what the request asks resolved to nothing (its
words found their answer in another file: `tz.py - what does gettz() read?` with the one
`def gettz` elsewhere), is not sent whole or as its first 1,000 lines — thousands of tokens no
answer needs — but as a shortlist of its own definitions that the request's words and meaning
point to (ranked as any described behaviour is, among that file's definitions only), each a
line saying where to read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from swetui.engine.retrieval_shortlist import Places, shortlist
from swetui.engine.symbols.candidate_weights import WITH_MEANING, LinearRanking
from swetui.engine.symbols.lookup import Meaning, Relevance, described
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.files import line_count, read_regular

MAX_COUNT_BYTES = 32_000_000


def named_places(root: Path, index: SymbolIndex, text: str, rel: str,
                 rerank: Meaning | None = None, weights: LinearRanking = WITH_MEANING,
                 exclude: Callable[[str], bool] | None = None) -> Places | None:
    """The definitions of the named file `rel` best matching `text`, as a shortlist; None
    when the map does not know the file or none of its definitions says a word of the
    request."""
    if rel not in index.by_file:
        return None
    scores = Relevance(index, text, near=[rel]).limited_to({rel})
    found = described(index, text, scores=scores, rerank=rerank, weights=weights)
    return shortlist(root, index, [replace(hit, how="candidate") for hit in found
                                   if hit.path == rel and hit.definition is not None],
                     exclude)


def count_lines(path: Path, limit: int = MAX_COUNT_BYTES) -> int:
    """Lines of a file (0 when it cannot be read or is larger than `limit`)."""
    try:
        data, size = read_regular(path, limit + 1, follow_symlinks=False)
    except OSError:
        return 0
    if size > limit:
        return 0
    return line_count(data)
