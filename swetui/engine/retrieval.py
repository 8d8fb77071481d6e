"""Just-in-time retrieval (DESIGN §4): before a request is assembled, the files it names are
read, its quoted terms and distinctive identifiers are grepped, and a listing is made when it
asks for one. Everything lands in the task layer for this turn only; `retire_task_items`
takes the previous turns' retrievals out of the request (kept in the archive).

`retrieve` only reads the engine (it runs in a worker thread); the caller adds the items.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from swetui.engine.compaction.text import identifiers
from swetui.engine.context import ContextEngine
from swetui.engine.files import (
    BUILD_DIRS,
    TOOL_DIRS,
    file_kind,
    looks_binary,
    read_error,
    read_regular,
)
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin, Source
from swetui.engine.payloads import GrepPayload
from swetui.engine.sources import read_workspace_text

IGNORED_DIRS = TOOL_DIRS | BUILD_DIRS | {".swetui"}
MAX_FILE_BYTES = 64_000
"""A named file is cut here (the task layer is ≤ 20% of the window)."""
MAX_GREP_FILE_BYTES = 1_000_000
MAX_SCAN_FILES = 20_000
SCAN_SECONDS = 1.5
"""Grep stops after this long and says so: a request must not wait on a huge tree."""
MAX_TERMS = 6
GREP_THREADS = 8
GREP_CHUNK = 256
MAX_NAMED_FILES = 8
LISTING_LINES = 200
TASK_KINDS = frozenset({ItemKind.FILE, ItemKind.GREP, ItemKind.LISTING})

STOP_WORDS = frozenset("""
a an and are as at be but by can could do does for from has have how i if in into is it its
me my no not of on or our please should so that the their them then there these this to us
was we what when where which who why will with would you your file files code function class
show read find grep search list look fix change add make use run test tests check explain
""".split())

_PATH = re.compile(r"(?<![\w./-])(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,8}(?![\w/-])"
                   r"|(?<![\w./-])(?:[\w.-]+/)+[\w.-]*")
_QUOTED = re.compile(r'"([^"\n]{2,80})"|`([^`\n]{2,80})`|(?<!\w)\'([^\'\n]{2,80})\'(?!\w)')
_LISTING = re.compile(r"\b(list(ing)?\s+(the\s+|all\s+)?(files|dir|directories|folders)|"
                      r"what'?s\s+in|structure|tree|\bls\b)", re.IGNORECASE)


@dataclass
class RetrievalResult:
    """The items to add for this request and one line saying what was retrieved."""

    items: list[ContextItem] = field(default_factory=list)
    summary: str = ""
    notes: list[str] = field(default_factory=list)


def walk(root: Path, ignore: frozenset[str] = IGNORED_DIRS,
         limit: int = MAX_SCAN_FILES) -> tuple[list[str], bool]:
    """Workspace-relative posix paths of regular files (sorted per directory), and whether
    the `limit` cut the walk short."""
    found: list[str] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(root / rel if rel else root), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in ignore:
                        subdirs.append(name)
                elif entry.is_file(follow_symlinks=False):
                    found.append(name)
                    if len(found) >= limit:
                        return found, True
            except OSError:
                continue
        stack.extend(reversed(subdirs))
    return found, False


def _inside(root: Path, candidate: str) -> Path | None:
    path = Path(os.path.realpath(root / candidate))
    real_root = Path(os.path.realpath(root))
    return path if path == real_root or real_root in path.parents else None


def _sent_contents(engine: ContextEngine) -> dict[tuple[ItemKind, str], set[str]]:
    """Contents of task items the next request already carries, by (kind, path/title)."""
    sent: dict[tuple[ItemKind, str], set[str]] = {}
    for item in engine:
        if item.kind in TASK_KINDS and (item.pinned or item.state in (ItemState.INCLUDED,
                                                                       ItemState.STALE)):
            sent.setdefault((item.kind, item.source.path or item.title), set()).add(item.content)
    return sent


def search_terms(text: str, named: set[str]) -> list[str]:
    """Quoted terms first, then distinctive identifiers (not the named files, no stop
    words), at most MAX_TERMS."""
    terms: list[str] = []
    for match in _QUOTED.finditer(text):
        term = next(group for group in match.groups() if group is not None).strip()
        if term and term not in named and term not in terms:
            terms.append(term)
    for word in sorted(identifiers(text), key=text.find):
        if word.lower() in STOP_WORDS or word in named or "/" in word or word in terms:
            continue
        if any(word == p.rsplit("/", 1)[-1] for p in named):
            continue
        terms.append(word)
    return terms[:MAX_TERMS]


def retrieve(root: Path, text: str, engine: ContextEngine, *, turn: int, max_hits: int = 10,
             max_file_bytes: int = MAX_FILE_BYTES, ignore: frozenset[str] = IGNORED_DIRS,
             max_files: int = MAX_SCAN_FILES, time_limit: float = SCAN_SECONDS,
             exclude: Callable[[str], bool] | None = None) -> RetrievalResult:
    """Read the files `text` names, grep its terms, list the tree when asked: new task-layer
    items for `turn` (not yet added), never duplicating what the request already carries.
    Files for which `exclude(rel)` is true (secrets, as the agent decides) are never read."""
    root = Path(root)
    result = RetrievalResult()
    sent = _sent_contents(engine)
    files: list[str] | None = None
    cut = False

    def tree() -> list[str]:
        nonlocal files, cut
        if files is None:
            files, cut = walk(root, ignore, max_files)
            if exclude is not None:
                files = [rel for rel in files if not exclude(rel)]
            if cut:
                result.notes.append(f"only the first {max_files:,} files were scanned")
        return files

    def make(kind: ItemKind, title: str, content: str, path: str | None,
             payload: GrepPayload | None = None) -> None:
        key = (kind, path or title)
        if content in sent.get(key, ()):
            result.notes.append(f"{path or title} is already in context")
            return
        sent.setdefault(key, set()).add(content)
        result.items.append(ContextItem(
            id=engine.new_id("r"), kind=kind, layer=Layer.TASK, title=title, content=content,
            origin=Origin.AUTO, source=Source(path=path, turn_id=f"t{turn}"),
            turn_created=turn, turn_last_used=turn, payload=payload))

    named, directories = _named_paths(root, text, tree, result)
    if exclude is not None:
        refused = [rel for rel in named if exclude(rel)]
        for rel in refused:
            result.notes.append(f"{rel}: may hold secrets, not read")
        named = [rel for rel in named if rel not in refused]
    for rel in named[:MAX_NAMED_FILES]:
        _read_named(root, rel, max_file_bytes, make, result)
    terms = search_terms(text, set(named) | {m.group(0) for m in _PATH.finditer(text)})
    if terms:
        hits, scanned, timed_out = grep(root, tree(), terms, max_hits, time_limit)
        if timed_out:
            result.notes.append(f"grep stopped after {time_limit:.1f}s ({scanned:,} files)")
        quoted = ", ".join(f'"{term}"' for term in terms)
        body = "\n".join(hits) if hits else "(no matches)"
        make(ItemKind.GREP, f"grep {quoted}",
             f"grep {quoted}: {len(hits)} hits (top {max_hits}; {scanned:,} files scanned)\n"
             f"{body}", None, GrepPayload(terms=tuple(terms), hits=len(hits)))
    if _LISTING.search(text):
        base = directories[0] if directories else ""
        make(ItemKind.LISTING, f"listing of {base or '.'}", listing(tree(), base),
             base or ".")
    result.summary = _summary(result, terms)
    return result


def _named_paths(root: Path, text: str, tree: Callable[[], list[str]],
                 result: RetrievalResult) -> tuple[list[str], list[str]]:
    """Existing files and directories named in `text` (paths, or bare names found in the tree)."""
    named: list[str] = []
    directories: list[str] = []
    for match in _PATH.finditer(text):
        candidate = match.group(0).strip("./") if not match.group(0).startswith("./") \
            else match.group(0)[2:]
        candidate = candidate.rstrip("/.,:;")
        if not candidate or candidate in named:
            continue
        path = _inside(root, candidate)
        if path is None:
            continue
        if path.is_file():
            named.append(candidate)
        elif path.is_dir():
            directories.append(candidate)
        elif path.exists():  # a FIFO, device or socket: named, never read
            kind = file_kind(path.stat().st_mode) or "not a regular file"
            result.notes.append(f"{candidate} is {kind}, not a regular file; not read")
        elif "/" not in candidate:
            matches = [rel for rel in tree() if rel.rsplit("/", 1)[-1] == candidate]
            if 0 < len(matches) <= 3:
                named.extend(m for m in matches if m not in named)
            elif len(matches) > 3:
                result.notes.append(f"{candidate}: {len(matches)} files have that name; "
                                    "name the path")
    return named, directories


def _read_named(root: Path, rel: str, max_bytes: int, make: Callable[..., None],
                result: RetrievalResult) -> None:
    try:
        loaded = read_workspace_text(root, rel, max_bytes)
    except OSError as exc:
        result.notes.append(read_error(rel, exc))
        return
    if loaded is None:
        result.notes.append(f"{rel}: binary file, not read")
        return
    note = f" ({'; '.join(loaded.notes)})" if loaded.notes else ""
    make(ItemKind.FILE, f"{rel}{note}", loaded.text, rel)


def grep(root: Path, files: list[str], terms: list[str], max_hits: int = 10,
         time_limit: float = SCAN_SECONDS) -> tuple[list[str], int, bool]:
    """`path:line: text` hits for any of `terms` (case-insensitive), lines matching more
    terms first; returns (hits, files scanned, timed out). Files are read by a few threads
    (reads release the GIL), in order, so the result does not depend on timing."""
    needles = [term.lower().encode() for term in terms]
    exact = [term.encode() for term in terms]
    deadline = time.perf_counter() + time_limit
    chunks = [files[start:start + GREP_CHUNK] for start in range(0, len(files), GREP_CHUNK)]

    def scan(chunk: list[str]) -> tuple[list[tuple[int, str]], int, bool]:
        found: list[tuple[int, str]] = []
        for count, rel in enumerate(chunk):
            if time.perf_counter() > deadline:
                return found, count, True
            try:  # the walk lists regular files only; one swapped for a FIFO is refused
                data, _size = read_regular(root / rel, MAX_GREP_FILE_BYTES + 1,
                                           follow_symlinks=False)
            except OSError:
                continue
            if len(data) > MAX_GREP_FILE_BYTES or looks_binary(data):
                continue
            lower = data.lower()
            if not any(needle in lower for needle in needles):
                continue
            for number, line in enumerate(data.splitlines(), 1):
                low = line.lower()
                score = sum(2 if e in line else 1 for e, n in zip(exact, needles, strict=True)
                            if n in low)
                if score:
                    shown = line.decode("utf-8", "replace").strip()[:200]
                    found.append((-score, f"{rel}:{number}: {shown}"))
        return found, len(chunk), False

    scored: list[tuple[int, int, str]] = []
    scanned, timed_out = 0, False
    with ThreadPoolExecutor(max_workers=GREP_THREADS) as pool:
        for found, count, stopped in pool.map(scan, chunks):
            scored.extend((score, len(scored), hit) for score, hit in found)
            scanned += count
            timed_out |= stopped
    return _top(scored, max_hits), scanned, timed_out


def _top(scored: list[tuple[int, int, str]], limit: int) -> list[str]:
    return [hit for _score, _order, hit in sorted(scored)[:limit]]


def listing(files: list[str], base: str = "", lines: int = LISTING_LINES) -> str:
    """A tree of `files` under `base`: directories with their file counts, then files."""
    prefix = f"{base.rstrip('/')}/" if base else ""
    under = [rel[len(prefix):] for rel in files if rel.startswith(prefix)]
    dirs: dict[str, int] = {}
    top: list[str] = []
    for rel in under:
        head, _, rest = rel.partition("/")
        if rest:
            dirs[head] = dirs.get(head, 0) + 1
        else:
            top.append(head)
    out = [f"{base or '.'}: {len(under):,} files"]
    out += [f"  {name}/ ({count} files)" for name, count in sorted(dirs.items())]
    out += [f"  {name}" for name in top]
    if len(out) > lines:
        out = out[:lines] + [f"  … {len(out) - lines} more"]
    return "\n".join(out)


def _summary(result: RetrievalResult, terms: list[str]) -> str:
    parts = []
    files = [i.source.path for i in result.items if i.kind is ItemKind.FILE]
    if files:
        parts.append("read " + ", ".join(p for p in files if p))
    for item in result.items:
        if item.kind is ItemKind.GREP:
            hits = item.payload.hits if isinstance(item.payload, GrepPayload) else 0
            parts.append(f"{item.title} → {hits} hits")
        elif item.kind is ItemKind.LISTING:
            parts.append(item.title)
    text = "; ".join(parts) if parts else "nothing to retrieve"
    return f"{text} ({'; '.join(result.notes)})" if result.notes else text


def retire_task_items(engine: ContextEngine, turn: int) -> list[str]:
    """Take automatic retrievals of earlier turns out of the request (state compacted, stub
    'retrieved for turn N: path'); pinned and user-added items stay."""
    retired = []
    with engine.batch("earlier retrievals retired"):
        for item in engine:
            if (item.layer is Layer.TASK and item.kind in TASK_KINDS
                    and item.origin is Origin.AUTO and not item.pinned
                    and item.state in (ItemState.INCLUDED, ItemState.STALE)
                    and item.turn_created < turn):
                engine.update(item.id, state=ItemState.COMPACTED,
                              stub=f"retrieved for turn {item.turn_created}: "
                                   f"{item.source.path or item.title}",
                              reason="retired: retrieved for an earlier turn")
                retired.append(item.id)
    return retired
