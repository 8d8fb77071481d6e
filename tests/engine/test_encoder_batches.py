"""The encoder's batches are a matter of memory, not of meaning: texts encoded together, in
batches capped at `BATCH_TOKENS` token rows, get the vectors they get one at a time."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols import encoder
from swetui.engine.symbols.encoder import Encoder

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
