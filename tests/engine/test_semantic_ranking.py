"""Ranking described behaviour by meaning as well as words, with the real model (the
`embeddings` extra): the closer in meaning of two equal word matches gets the higher cosine,
named definitions are left alone, what was embedded is reused, and when the model cannot
load, retrieval ranks by words and says why in one line."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_spans import find_hits
from swetui.engine.symbols.encoder import MODEL_PACKAGE, Encoder, model_dir
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.semantic import (
    MODEL,
    ModelLoader,
    Scored,
    SemanticRanker,
    VectorCache,
)
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap

SOURCE = '''"""Networking helpers."""


def retry_delay(attempt):
    """How long to wait before the next attempt: doubles each time, at most a minute."""
    return min(60, 2 ** attempt)


def attempt_count(settings):
    """The number of attempts to make, read from the settings' attempt field."""
    return settings.get("attempt", 3)


def open_socket(host, port):
    """Connect a TCP socket to host and port."""
    raise NotImplementedError


def close_socket(sock):
    """Close a socket, ignoring errors."""
    sock.close()


def parse_header_line(line):
    """Split one `Name: value` header line into its name and value."""
    name, _, value = line.partition(":")
    return name.strip(), value.strip()


def header_names(headers):
    """The names of the headers, lower-cased."""
    return [name.lower() for name, _ in headers]


class Pool:
    """Keeps open connections for reuse, one list per host."""

    def take(self, host):
        """An idle connection to host, or None."""
        return None

    def give_back(self, host, connection):
        """Keep a connection for the next request to host."""
'''


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SymbolIndex]:
    root = tmp_path_factory.mktemp("semantic")
    (root / "net.py").write_text(SOURCE, encoding="utf-8")
    symbols = SymbolMap(root)
    symbols.build()
    return root, symbols.index()


def _definitions(index: SymbolIndex) -> dict[str, Definition]:
    return {d.qualname: d for d in index.by_file["net.py"].definitions}


def test_the_encoder_puts_a_paraphrase_nearer_than_an_unrelated_text() -> None:
    encoder = Encoder()
    vectors = [encoder.encode([text])[0] for text in
               ("follow the redirect to the new location", "close a socket, ignoring errors")]
    near, far = encoder.cosines("where are redirects followed?", vectors)
    assert near > far + 0.2


def test_the_closer_in_meaning_of_two_equal_word_matches_gets_the_higher_cosine(
        workspace: tuple[Path, SymbolIndex]) -> None:
    """What the learned ranking breaks a tie of words with: the cosine of each candidate's
    text (read from the workspace) with the request, whatever order they come in."""
    root, index = workspace
    found = _definitions(index)
    ranker = SemanticRanker(root, MODEL, VectorCache())
    request = "How long do we wait before trying again, and does the wait grow?"
    for first, second in (("retry_delay", "attempt_count"), ("attempt_count", "retry_delay")):
        scored: list[Scored] = [(1.0, "net.py", found[first]), (1.0, "net.py", found[second])]
        cosines = ranker.cosines(request, scored)
        assert cosines is not None
        closeness = dict(zip((first, second), cosines, strict=True))
        assert closeness["retry_delay"] > closeness["attempt_count"]


_CACHE = VectorCache()


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_definition_the_request_names_is_attached_with_the_reranker(
        workspace: tuple[Path, SymbolIndex], data: st.DataObject) -> None:
    root, index = workspace
    name = data.draw(st.sampled_from(sorted(_definitions(index))))
    text = data.draw(st.sampled_from(["How does `{}` work?", "what does {}() return",
                                      "Explain {} please"])).format(name)
    ranker = SemanticRanker(root, MODEL, _CACHE)
    with_meaning = find_hits(index, text, rerank=ranker)
    assert any(hit.definition is not None and hit.definition.qualname == name
               for hit in with_meaning)
    assert with_meaning == find_hits(index, text)


def test_vectors_embedded_once_serve_the_next_request(
        workspace: tuple[Path, SymbolIndex]) -> None:
    root, index = workspace
    cache = VectorCache()
    first = SemanticRanker(root, MODEL, cache)
    find_hits(index, "how is a header line split into its name and value?", rerank=first)
    assert first.embedded > 0
    again = SemanticRanker(root, MODEL, cache)
    find_hits(index, "how is a header line split into a name and a value", rerank=again)
    assert again.embedded == 0


def _words_only_titles(root: Path, index: SymbolIndex, text: str) -> list[str]:
    result = retrieve(root, text, ContextEngine(), turn=1, symbols=index, semantic=None)
    return [item.title for item in result.items]


def test_a_damaged_model_file_leaves_ranking_to_words_with_one_line(
        workspace: tuple[Path, SymbolIndex], tmp_path: Path) -> None:
    root, index = workspace
    damaged = tmp_path / "model"
    damaged.mkdir()
    shutil.copy(model_dir() / "tokenizer.json", damaged / "tokenizer.json")
    weights = (model_dir() / "model.safetensors").read_bytes()
    (damaged / "model.safetensors").write_bytes(weights[:len(weights) // 2])
    loader = ModelLoader(damaged)
    text = "where is the connection kept for reuse?"
    result = retrieve(root, text, ContextEngine(), turn=1, symbols=index, semantic=loader)
    assert [item.title for item in result.items] == _words_only_titles(root, index, text)
    assert result.items
    said = [note for note in result.notes if "words only" in note]
    assert len(said) == 1 and "\n" not in said[0] and "checksum" in said[0]
    again = retrieve(root, text, ContextEngine(), turn=2, symbols=index, semantic=loader)
    assert not [note for note in again.notes if "words only" in note]  # said once


def test_a_changed_tokenizer_is_refused_and_ranking_is_left_to_words(
        workspace: tuple[Path, SymbolIndex], tmp_path: Path) -> None:
    """A tokenizer.json that still loads but splits words otherwise (two tokens' ids
    swapped) would give other vectors from the right weights: it is refused like damaged
    weights, and the request ranks by words with one line saying why."""
    root, index = workspace
    changed = tmp_path / "model"
    changed.mkdir()
    (changed / "model.safetensors").symlink_to(model_dir() / "model.safetensors")
    tokenizer = json.loads((model_dir() / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = tokenizer["model"]["vocab"]
    vocab["connection"], vocab["socket"] = vocab["socket"], vocab["connection"]
    (changed / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    loader = ModelLoader(changed)
    text = "where is the connection kept for reuse?"
    result = retrieve(root, text, ContextEngine(), turn=1, symbols=index, semantic=loader)
    assert [item.title for item in result.items] == _words_only_titles(root, index, text)
    said = [note for note in result.notes if "words only" in note]
    assert len(said) == 1 and "tokenizer" in said[0] and "checksum" in said[0]
    assert loader.encoder is None


def test_a_missing_model_package_leaves_ranking_to_words_with_one_line(
        workspace: tuple[Path, SymbolIndex], monkeypatch: pytest.MonkeyPatch) -> None:
    root, index = workspace
    monkeypatch.setitem(sys.modules, MODEL_PACKAGE, None)  # how Python marks "not there"
    loader = ModelLoader()
    text = "where is the connection kept for reuse?"
    result = retrieve(root, text, ContextEngine(), turn=1, symbols=index, semantic=loader)
    assert [item.title for item in result.items] == _words_only_titles(root, index, text)
    assert result.items
    said = [note for note in result.notes if "words only" in note]
    assert len(said) == 1 and "not installed" in said[0] and "\n" not in said[0]
