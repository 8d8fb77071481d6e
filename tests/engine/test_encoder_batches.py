"""The encoder's memory savings change no vector: texts encoded together, in batches capped at
`BATCH_TOKENS` token rows, get the vectors they get one at a time, and the token table left
mapped from the weights file is the table the file holds."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors import safe_open

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols import encoder
from swetui.engine.symbols.encoder import TOKEN_EMBEDDINGS, Encoder, TokenRows, model_dir
from swetui.engine.symbols.semantic import ModelLoader
from swetui.engine.symbols.symbol_map import SymbolMap

SOURCE = '''\
def retry_delay(attempt):
    """How long to wait before the next attempt: doubles each time, at most a minute."""
    return min(60, 2 ** attempt)


def open_socket(host, port):
    """Connect a TCP socket to host and port."""
    raise NotImplementedError
'''
WORDS = ("redirect", "cookie", "timeout", "header", "the", "is", "followed", "decode",
         "gzip", "client", "response", "body", "stream", "retry", "socket", "pool")


@pytest.fixture(scope="module")
def model() -> Encoder:
    return Encoder()


_TEXTS = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=150).map(" ".join),
                  min_size=1, max_size=12)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(texts=_TEXTS, cap=st.sampled_from([16, 64, 512]))
def test_texts_encoded_together_match_each_encoded_alone(
        model: Encoder, texts: list[str], cap: int) -> None:
    alone = np.stack([model.encode([text])[0] for text in texts])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encoder, "BATCH_TOKENS", cap)
        together = model.encode(texts)
    assert together.shape == alone.shape
    assert np.abs(together - alone).max() < 1e-4


def test_the_token_rows_read_from_the_file_are_the_table_it_holds() -> None:
    path = str(model_dir() / "model.safetensors")
    with safe_open(path, framework="np") as tensors:
        table = tensors.get_tensor(TOKEN_EMBEDDINGS)
    tokens = np.array([[101, 2054, 2003, 102, 0], [101, 101, 30521, 0, 0]], dtype=np.int64)
    with open(path, "rb") as file:
        _start, tensors = encoder._layout(file, hashlib.sha256())
        _weights, checked = encoder._read_weights(file, hashlib.sha256(), tensors,
                                                  TOKEN_EMBEDDINGS)
        rows = TokenRows(file, tensors, path, checked)[tokens]
    assert rows.shape == (2, 5, table.shape[1]) and np.array_equal(rows, table[tokens])


def test_weights_cut_short_while_running_leave_ranking_to_words(tmp_path: Path) -> None:
    """The weights file truncated in place after the model loaded (a copy over it, a full
    disk): the next request is ranked by words with one line, and the process lives."""
    copy = tmp_path / "model"
    shutil.copytree(model_dir(), copy)
    (root := tmp_path / "ws").mkdir()
    (root / "net.py").write_text(SOURCE)
    symbols = SymbolMap(root)
    symbols.build()
    loader = ModelLoader(copy)
    request = "How long do we wait before the next attempt?"
    first = retrieve(root, request, ContextEngine(), turn=1, symbols=symbols.index(),
                     semantic=loader)
    assert loader.encoder is not None and not first.notes
    os.truncate(copy / "model.safetensors", 1_000_000)
    again = retrieve(root, "How long do we wait before the next attempt, zebra?", ContextEngine(),
                     turn=2, symbols=symbols.index(), semantic=loader)
    assert [note for note in again.notes if "changed on disk" in note]
