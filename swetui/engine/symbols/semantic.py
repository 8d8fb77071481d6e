"""How close in meaning a request is to the definitions it may be about: the candidates the
learned ranking chooses among (`lookup.described`, `learned_ranking`) are embedded with a
sentence encoder (`encoder`) from their name, signature and docstring, and `SemanticRanker`
gives each one's cosine with the request, a feature beside the words'. Only those few
candidates are embedded, when a request needs them, and their vectors are kept for later
requests (in memory, and on disk beside the symbol map's cache): nothing is embedded ahead of
time, so a workspace of any size costs nothing until it is asked about, and a request that
names what it needs costs nothing.

The model is loaded the first time a request needs it (once per process). When it cannot
load (its package missing, its file damaged), retrieval ranks by words alone and says so
once, in one line."""

from __future__ import annotations

import importlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from swetui.engine.sources import read_workspace_text
from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.engine.symbols.semantic_text import definition_text, text_key
from swetui.files import SecretFile, SecretRule

if TYPE_CHECKING:
    from swetui.engine.symbols.encoder import Encoder, Vectors
    from swetui.engine.symbols.semantic_store import VectorStore

Scored = tuple[float, str, Definition]
"""(score, file, definition), as `lookup.described` ranks them."""
LOAD_WAIT = 10.0
"""Seconds a request waits for the model to load before ranking by words alone."""
CACHE_SIZE = 20_000
"""Definition vectors kept (1.5 KB each)."""
MAX_FILE_BYTES = 2_000_000
ENCODER_MODULE = "swetui.engine.symbols.encoder"
STORE_MODULE = "swetui.engine.symbols.semantic_store"
VECTORS_FILE = "vectors.sqlite"
"""The vectors' file, beside the symbol map's cache in `.swetui/symbols/`."""


class ModelLoader:
    """One encoder, loaded once in a background thread when first asked for."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        """The model's files; the installed package's when None."""
        self.encoder: Encoder | None = None
        self.error: str | None = None
        self.told = False
        """Whether the reason it cannot load was said already (it is said once)."""
        self._loaded = threading.Event()
        self._lock = threading.Lock()
        self._started = False
        self._stores: dict[Path, VectorStore] = {}

    def get(self, wait: float = LOAD_WAIT) -> Encoder | None:
        """The encoder, waiting up to `wait` seconds for it to load; None when it cannot
        be loaded (`error` says why) or is not loaded yet."""
        with self._lock:
            if not self._started:
                self._started = True
                threading.Thread(target=self._load, name="swetui-encoder", daemon=True).start()
        self._loaded.wait(wait)
        if self.encoder is None and self.error is None:
            return None  # still loading: this request ranks by words
        return self.encoder

    def store(self, path: Path) -> VectorStore | None:
        """The vectors this model made kept on disk at `path` (opened once); None until
        the model is loaded."""
        if self.encoder is None:
            return None
        with self._lock:
            found = self._stores.get(path)
            if found is None:
                # Imported here: numpy costs start-up time a session may not need; it is
                # loaded once the encoder is.
                module = importlib.import_module(STORE_MODULE)
                found = self._stores[path] = module.VectorStore(
                    path, self.encoder.model_id, self.encoder.dimension)
            return found

    def _load(self) -> None:
        try:
            # Imported here, not at the top: numpy, tokenizers and the model cost start-up
            # time a session may not need, and an install may have lost them.
            encoder = importlib.import_module(ENCODER_MODULE)
        except ImportError as exc:
            self.error = ("the embedding model is not installed "
                          f"(reinstall swetui to bring it back; {exc})".replace("\n", " "))
            self._loaded.set()
            return
        try:
            self.encoder = encoder.Encoder(self.directory)
        except encoder.EncoderUnavailable as exc:
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 — whatever a damaged model does, words rank
            self.error = f"the embedding model failed to load: {type(exc).__name__}: {exc}"
        finally:
            self._loaded.set()


MODEL = ModelLoader()
"""The process's encoder."""


class VectorCache:
    """Definition texts' vectors, the least recently used dropped past `size`."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()

    def get(self, text: str) -> Vectors | None:
        with self._lock:
            found = self._vectors.get(text)
            if found is not None:
                self._vectors.move_to_end(text)
            return found

    def put(self, text: str, vector: Vectors) -> None:
        with self._lock:
            self._vectors[text] = vector
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)


VECTORS = VectorCache()
"""The process's definition vectors (keyed by the text embedded, so an edit misses)."""
STORE_PATHS: dict[Path, Path] = {}
"""Where the vectors embedded for a workspace (by its resolved root) are kept on disk, when
its session keeps a symbol map cache (`keep_vectors`)."""


def keep_vectors(root: Path, path: Path) -> None:
    """Keep the vectors embedded for `root`'s definitions in `path` as well as in memory,
    so a later session reads them instead of embedding them again."""
    STORE_PATHS[Path(root).resolve()] = path


class SemanticRanker:
    """How close in meaning a request is to each of its candidates (`lookup.Meaning`); loads
    the model only when first asked."""

    def __init__(self, root: Path, model: ModelLoader = MODEL,
                 cache: VectorCache = VECTORS, store: Path | None = None,
                 mapped: Mapping[str, FileSymbols] | None = None,
                 secrets: SecretRule | None = None) -> None:
        self.root = root
        self.mapped = mapped
        self.secrets = secrets
        """The workspace's secret rule: a mapped file that has since become another name of
        a secret file (a link or hard link of `.env`) is embedded by its names alone."""
        """The map's files: a file whose line count differs from the map's has changed
        since it was mapped, and its definitions are embedded by their names alone."""
        self.model = model
        self.cache = cache
        self.store_path = store if store is not None else STORE_PATHS.get(Path(root).resolve())
        """The vectors' file on disk, if any (`keep_vectors`)."""
        self.embedded = 0
        """Definitions this ranker had to embed (not found in the cache)."""
        self.notice: str | None = None
        """One line when it ranked by words alone because the model cannot be had."""

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        """The cosine of the request with each candidate's text; None when the model
        cannot be had or its files cannot be read (`notice` then says why)."""
        if not candidates:
            return []
        encoder = self.model.get()
        if encoder is None:
            self._say_why()
            return None
        try:
            vectors = self._vectors(encoder, candidates)
            if vectors is None:
                return None
            return encoder.cosines(text, vectors)
        except OSError as exc:  # the model's files changed on disk since it loaded
            self.notice = f"ranked by words only: {exc.strerror or exc}"
            return None

    def _say_why(self) -> None:
        if self.model.error is None:
            self.notice = "ranked by words only: the embedding model is still loading"
        elif not self.model.told:
            self.model.told = True
            self.notice = f"ranked by words only: {self.model.error}"

    def _lines(self, rel: str) -> list[str] | None:
        """The lines of `rel` to embed its definitions' heads from: none (names alone) for a
        file changed since it was mapped or one that is now a secret file by any name; None
        when it cannot be read."""
        if self.secrets is not None and self.secrets(rel):
            return []
        try:
            loaded = read_workspace_text(self.root, rel, MAX_FILE_BYTES,
                                         self.secrets.opened if self.secrets else None)
        except SecretFile:
            return []
        except OSError:
            return None
        if loaded is None:
            return None
        lines = loaded.lines()
        mapped = self.mapped.get(rel) if self.mapped is not None else None
        if mapped is not None and mapped.lines != len(lines) and not loaded.cut:
            # Changed since it was mapped (the watcher will update the map): the map's
            # lines would name other code, so only the name is embedded.
            return []
        return lines

    def _vectors(self, encoder: Encoder, top: list[Scored]) -> list[Vectors] | None:
        texts: list[str] = []
        lines: dict[str, list[str]] = {}
        for _score, rel, definition in top:
            if rel not in lines:
                read = self._lines(rel)
                if read is None:
                    return None
                lines[rel] = read
            texts.append(definition_text(definition, lines[rel]))
        found = [self.cache.get(text) for text in texts]
        missing = list(dict.fromkeys(text for text, vector in zip(texts, found, strict=True)
                                     if vector is None))
        fresh: dict[str, Vectors] = {}
        store = self.model.store(self.store_path) if self.store_path is not None else None
        if missing and store is not None:
            keys = {text: text_key(text) for text in missing}
            kept = store.get(list(keys.values()))
            fresh = {text: kept[key] for text, key in keys.items() if key in kept}
            missing = [text for text in missing if text not in fresh]
        if missing:
            self.embedded += len(missing)
            made = dict(zip(missing, encoder.encode(missing), strict=True))
            if store is not None:
                store.put({text_key(text): vector for text, vector in made.items()})
            fresh |= made
        for text, vector in fresh.items():
            self.cache.put(text, vector)
        return [fresh[text] if vector is None else vector
                for text, vector in zip(texts, found, strict=True)]
