"""The model's weights replaced on disk after swetui checked their SHA-256 (a reinstall, a
package manager, a process with write access to the environment): what runs must be the
weights that were checked. The weights are read once, through one open file, hashed as
they are read; the token rows read later come through that same file."""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from swetui.engine.symbols.encoder import (
    TOKEN_EMBEDDINGS,
    Encoder,
    EncoderUnavailable,
    model_dir,
)

TEXT = "How long do we wait before the next attempt?"


def _zeroed_table(weights: Path, into: Path) -> None:
    """A copy of `weights` whose token-embedding table is all zeros (another model)."""
    data = bytearray(weights.read_bytes())
    size = int.from_bytes(data[:8], "little")
    begin, end = json.loads(data[8:8 + size])[TOKEN_EMBEDDINGS]["data_offsets"]
    data[8 + size + begin:8 + size + end] = bytes(end - begin)
    into.write_bytes(data)


def test_weights_swapped_after_the_check_are_not_what_runs(tmp_path: Path) -> None:
    copy = tmp_path / "model"
    shutil.copytree(model_dir(), copy)
    model = Encoder(copy)
    checked = model.encode([TEXT])[0]
    swapped = tmp_path / "other.safetensors"
    _zeroed_table(copy / "model.safetensors", swapped)
    os.replace(swapped, copy / "model.safetensors")  # the name now leads to other weights
    again = model.encode([TEXT, "a text with tokens not seen before: zebra quasar"])
    assert np.array_equal(again[0], checked)
    assert np.abs(again[1]).sum() > 0 and not np.isnan(again[1]).any()


def test_weights_rewritten_in_place_after_the_check_are_not_what_runs(tmp_path: Path) -> None:
    """The same file (same inode, held open by swetui) rewritten in place: the token rows
    read later are not the checked ones, so they are refused and ranking falls back to
    words (an OSError), never vectors of another model."""
    copy = tmp_path / "model"
    shutil.copytree(model_dir(), copy)
    weights = copy / "model.safetensors"
    model = Encoder(copy)
    checked = model.encode([TEXT])[0]
    zeroed = tmp_path / "zeroed.safetensors"
    _zeroed_table(weights, zeroed)
    with open(weights, "r+b") as file:  # in place: the descriptor swetui holds sees it
        file.write(zeroed.read_bytes())
    assert np.abs(checked).sum() > 0
    with pytest.raises(OSError, match="changed on disk"):
        model.encode([TEXT])


def test_a_header_naming_one_range_many_times_is_refused_before_it_is_read(
        tmp_path: Path) -> None:
    """A weights file whose header names the same bytes under many tensors would make the
    loader copy the file once per name before the checksum says it is not the model."""
    copy = tmp_path / "model"
    shutil.copytree(model_dir(), copy)
    data = bytes(256 * 1024)
    header = json.dumps({f"t{n}": {"dtype": "F32", "shape": [len(data) // 4],
                                   "data_offsets": [0, len(data)]} for n in range(64)}).encode()
    (copy / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + data)
    tracemalloc.start()
    try:
        with pytest.raises(EncoderUnavailable, match="not the expected model"):
            Encoder(copy)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(data), f"{peak:,} bytes allocated for a {len(data):,}-byte file"
