"""The encoder's memory savings change no vector: texts encoded together, in batches capped at
`BATCH_TOKENS` token rows, get the vectors they get one at a time, and the token table left
mapped from the weights file is the table the file holds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors import safe_open

from swetui.engine.symbols import encoder
from swetui.engine.symbols.encoder import TOKEN_EMBEDDINGS, Encoder, _mapped, model_dir

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


def test_the_mapped_token_table_is_the_one_the_weights_file_holds() -> None:
    path = str(model_dir() / "model.safetensors")
    with safe_open(path, framework="np") as tensors:
        copied = tensors.get_tensor(TOKEN_EMBEDDINGS)
    mapped = _mapped(path, TOKEN_EMBEDDINGS)
    assert mapped.shape == copied.shape and np.array_equal(mapped, copied)
