"""Definition vectors kept on disk: what a session embedded is read back by the next one,
and a damaged, foreign, tampered or other model's file is ignored (and started again), never
trusted."""

from __future__ import annotations

import sqlite3
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from swetui.agent.repository_map import RepositoryMap
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_spans import find_hits
from swetui.engine.symbols.encoder import WEIGHTS_SHA256 as MODEL_ID
from swetui.engine.symbols.semantic import MODEL, SemanticRanker, VectorCache
from swetui.engine.symbols.semantic_store import VectorStore, text_key
from swetui.engine.symbols.semantic_text import definition_text
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap

DIM = 8


def _unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


_finite = st.floats(-1e3, 1e3, allow_nan=False, width=32).filter(lambda v: abs(v) > 1e-3)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(vectors=st.dictionaries(st.text(max_size=40), arrays(np.float32, DIM, elements=_finite),
                               max_size=6))
def test_vectors_stored_by_one_session_are_read_back_by_the_next(
        vectors: dict[str, np.ndarray]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "symbols" / "vectors.sqlite"
        units = {text_key(text): v / np.linalg.norm(v) for text, v in vectors.items()}
        first = VectorStore(path, "model-a", DIM)
        first.put(units)
        first.close()
        again = VectorStore(path, "model-a", DIM).get(list(units))
        assert again.keys() == units.keys()
        for key, vector in units.items():
            assert np.array_equal(again[key], vector.astype(np.float32))


def test_a_garbage_file_is_started_again_not_read(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    store = VectorStore(path, "model-a", DIM)
    assert store.get([text_key("x")]) == {}
    store.put({text_key("x"): _unit(1)})
    assert np.array_equal(store.get([text_key("x")])[text_key("x")], _unit(1))


def test_another_models_vectors_are_not_used(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    old = VectorStore(path, "model-a", DIM)
    old.put({text_key("x"): _unit(1)})
    old.close()
    assert VectorStore(path, "model-b", DIM).get([text_key("x")]) == {}
    assert VectorStore(path, "model-a", DIM).get([text_key("x")]) == {}  # it was replaced


def test_a_tampered_row_is_ignored_and_the_rest_still_serve(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    store = VectorStore(path, "model-a", DIM)
    store.put({text_key("good"): _unit(1), text_key("long"): _unit(2),
               text_key("scaled"): _unit(3)})
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE vectors SET vector = ? WHERE key = ?",
                   (b"\0" * (4 * DIM + 4), text_key("long")))
        db.execute("UPDATE vectors SET vector = ? WHERE key = ?",
                   ((_unit(3) * 5).astype("<f4").tobytes(), text_key("scaled")))
    found = VectorStore(path, "model-a", DIM).get(
        [text_key("good"), text_key("long"), text_key("scaled")])
    assert list(found) == [text_key("good")]


def test_a_file_with_a_foreign_trigger_is_started_again(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    store = VectorStore(path, "model-a", DIM)
    store.put({text_key("x"): _unit(1)})
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE seen (key BLOB)")
        db.execute("CREATE TRIGGER spy AFTER INSERT ON vectors BEGIN "
                   "INSERT INTO seen VALUES (new.key); END")
    again = VectorStore(path, "model-a", DIM)
    assert again.get([text_key("x")]) == {}
    again.put({text_key("y"): _unit(2)})
    again.close()
    with sqlite3.connect(path) as db:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert "spy" not in names and "seen" not in names


def test_the_oldest_vectors_go_past_the_limit(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "vectors.sqlite", "model-a", DIM, limit=3)
    for n in range(5):
        store.put({text_key(str(n)): _unit(n)})
    assert sorted(store.get([text_key(str(n)) for n in range(5)])) == \
        sorted(text_key(str(n)) for n in (2, 3, 4))


SOURCE = '''def retry_delay(attempt):
    """How long to wait before the next attempt: it doubles each time, up to a minute."""
    return min(60, 2 ** attempt)


def attempt_count(settings):
    """The number of attempts to make, read from the settings' attempt field."""
    return settings.get("attempt", 3)


def parse_header_line(line):
    """Split one `Name: value` header line into its name and value."""
    name, _, value = line.partition(":")
    return name.strip(), value.strip()
'''
REQUEST = "How long do we wait before the next attempt?"


def _ranked(root: Path, index: SymbolIndex, store: Path | None) -> tuple[list[str], int]:
    ranker = SemanticRanker(root, MODEL, VectorCache(), store)
    hits = find_hits(index, REQUEST, rerank=ranker)
    return [hit.definition.qualname for hit in hits if hit.definition is not None], \
        ranker.embedded


def test_a_restart_reads_the_vectors_instead_of_embedding_again(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(SOURCE, encoding="utf-8")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    index = symbols.index()
    store = tmp_path / ".swetui" / "symbols" / "vectors.sqlite"
    first, embedded = _ranked(tmp_path, index, store)
    assert embedded > 0 and first[0] == "retry_delay"
    again, embedded_again = _ranked(tmp_path, index, store)  # a new process's memory
    assert (again, embedded_again) == (first, 0)
    store.write_bytes(b"\x00garbage" * 64)  # damaged between sessions: embedded again
    damaged, embedded_damaged = _ranked(tmp_path, index, store)
    assert damaged == first and embedded_damaged == embedded


def test_a_sessions_map_keeps_what_retrieval_embeds_beside_its_cache(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(SOURCE, encoding="utf-8")
    cache = tmp_path / ".swetui" / "symbols" / "map.sqlite"
    session_map = RepositoryMap(tmp_path, ContextEngine(), cache_path=cache, exclude=None)
    session_map.map.build()
    result = retrieve(tmp_path, REQUEST, ContextEngine(), turn=1,
                      symbols=session_map.map.index())
    assert any("retry_delay" in item.content for item in result.items)
    kept = VectorStore(cache.with_name("vectors.sqlite"), MODEL_ID, 384)
    texts = _texts(tmp_path)  # the candidates by words were embedded, and kept
    assert text_key(texts["retry_delay"]) in kept.get([text_key(texts["retry_delay"])])


def _texts(root: Path) -> dict[str, str]:
    symbols = SymbolMap(root)
    symbols.build()
    lines = (root / "net.py").read_text(encoding="utf-8").splitlines()
    return {d.name: definition_text(d, lines)
            for d in symbols.index().by_file["net.py"].definitions}


def test_a_file_another_session_is_writing_is_skipped_not_deleted(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    mine = VectorStore(path, "model-a", DIM)
    mine.put({text_key("kept"): _unit(1)})
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another session in the middle of its write
    try:
        mine.put({text_key("new"): _unit(2)})  # skipped after a short wait
        assert VectorStore(path, "model-a", DIM).get([text_key("kept")]) == {}  # busy too
    finally:
        other.execute("ROLLBACK")
        other.close()
    found = VectorStore(path, "model-a", DIM).get([text_key("kept"), text_key("new")])
    assert list(found) == [text_key("kept")]  # the file was not started again
    mine.put({text_key("new"): _unit(2)})
    assert len(mine.get([text_key("kept"), text_key("new")])) == 2


def test_an_oversized_row_is_rejected_without_reading_it(tmp_path: Path) -> None:
    """A hostile workspace's file with a huge row under a key retrieval asks for: the row
    is left out (and deleted) without its bytes ever reaching Python."""
    path = tmp_path / "vectors.sqlite"
    store = VectorStore(path, "model-a", DIM)
    store.put({text_key("good"): _unit(1), text_key("huge"): _unit(2)})
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE vectors SET vector = zeroblob(30000000) WHERE key = ?",
                   (text_key("huge"),))
    again = VectorStore(path, "model-a", DIM)
    tracemalloc.start()
    try:
        found = again.get([text_key("good"), text_key("huge")])
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert list(found) == [text_key("good")]
    assert peak < 5_000_000, f"{peak:,} bytes allocated to reject the row"
