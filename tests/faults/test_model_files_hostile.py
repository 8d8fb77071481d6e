"""Attacks on the embedding model's files: a FIFO in place of one of them must not keep the
model loading forever (every described request would wait, then rank by words); a damaged
file says why once.
A finding not fixed yet is marked xfail(strict=True): the test passes once it is fixed, and
then the mark must go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swetui.engine.symbols.encoder import model_dir
from swetui.engine.symbols.semantic import ModelLoader


@pytest.mark.parametrize("fifo", ["tokenizer.json", "model.safetensors"])
def test_a_fifo_in_place_of_a_model_file_does_not_keep_the_model_loading_forever(
        tmp_path: Path, fifo: str) -> None:
    """LOW (needs write access to the model's folder): a FIFO named tokenizer.json (or
    model.safetensors) blocks the loader thread in open() forever; the model stays 'still
    loading', so every described request waits LOAD_WAIT (10 s) and then ranks by words,
    for the whole session. A damaged file should say why once, as a changed one does."""
    for name in ("tokenizer.json", "model.safetensors"):
        if name == fifo:
            os.mkfifo(tmp_path / name)
        else:
            os.symlink(model_dir() / name, tmp_path / name)
    loader = ModelLoader(tmp_path)
    assert loader.get(wait=60) is None
    assert loader.error is not None and fifo in loader.error, loader.error
