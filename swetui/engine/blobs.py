"""A content-addressed blob store: large contents are kept once, named by their hash."""

from __future__ import annotations

import logging
from pathlib import Path

from swetui.engine.tokens import content_hash
from swetui.files import read_regular
from swetui.paths import write_private

log = logging.getLogger(__name__)

INLINE_LIMIT = 4_096
"""Contents up to this many characters are stored inline in the session log."""


class BlobStore:
    """Keeps texts by content hash, in memory and (when given a directory) on disk."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self._blobs: dict[str, str] = {}

    def put(self, text: str, digest: str | None = None) -> str:
        """Store `text` once; returns its hash. Writes to disk durably before returning."""
        digest = digest or content_hash(text)
        if digest in self._blobs:
            return digest
        self._blobs[digest] = text
        if self.directory is not None:
            path = self._path(digest)
            if not path.exists():
                try:
                    write_private(path, text.encode("utf-8", errors="surrogatepass"))
                except OSError as exc:
                    log.warning("blob %s not persisted: %s", digest, exc)
        return digest

    def get(self, digest: str) -> str | None:
        text = self._blobs.get(digest)
        if text is None and self.directory is not None:
            try:
                data = read_regular(self._path(digest), None)[0]
                text = data.decode("utf-8", errors="surrogatepass")
            except (OSError, UnicodeDecodeError):
                return None
            self._blobs[digest] = text
        return text

    def __contains__(self, digest: str) -> bool:
        return digest in self._blobs or (
            self.directory is not None and self._path(digest).exists()
        )

    def __len__(self) -> int:
        return len(self._blobs)

    def _path(self, digest: str) -> Path:
        assert self.directory is not None
        return self.directory / digest[:2] / digest[2:]
