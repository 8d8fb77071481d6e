"""The ranking by meaning reads a definition's head at the map's line numbers. A file edited
since it was mapped (before the watcher updates the map) holds other code at those lines:
what is embedded for its definitions must not be that code (it would rank the definition
by what it no longer says), only the name the map knows."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.symbols.semantic import MODEL, SemanticRanker, VectorCache
from swetui.engine.symbols.semantic_text import definition_text
from swetui.engine.symbols.symbol_map import SymbolMap

SOURCE = '''def retry_delay(attempt):
    """How long to wait before the next attempt: doubles each time."""
    return min(60, 2 ** attempt)
'''
EDITED = '''def refund_card(payment):
    """Give the customer's money back onto the card."""
    return payment.refund()


''' + SOURCE


def test_a_definition_of_a_file_changed_since_it_was_mapped_is_embedded_by_its_name(
        tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(SOURCE, encoding="utf-8")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    index = symbols.index()
    (definition,) = index.by_file["net.py"].definitions
    (tmp_path / "net.py").write_text(EDITED, encoding="utf-8")  # not yet seen by the map
    cache = VectorCache()
    ranker = SemanticRanker(tmp_path, MODEL, cache, mapped=index.by_file)
    cosines = ranker.cosines("how long before the next attempt?", [(1.0, "net.py", definition)])
    assert cosines is not None and len(cosines) == 1
    stale = definition_text(definition, EDITED.splitlines())
    assert "refund" in stale  # what the map's old lines now hold
    assert cache.get(stale) is None
    assert cache.get(definition_text(definition, [])) is not None  # "retry delay:"
