"""Just-in-time retrieval (DESIGN §4): before a request is assembled, the files it names are
read, its quoted terms and distinctive identifiers are grepped, and a listing is made when it
asks for one. Everything lands in the task layer for this turn only; `retire_task_items`
takes the previous turns' retrievals out of the request (kept in the archive).

`retrieve` only reads the engine (it runs in a worker thread); the caller adds the items.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from swetui.engine.already_sent import AlreadySent
from swetui.engine.compaction.text import identifiers
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin, Source
from swetui.engine.payloads import FilePayload, GrepPayload, ShortlistPayload
from swetui.engine.retrieval_grep import SCAN_SECONDS, grep, listing
from swetui.engine.retrieval_named import count_lines, named_places
from swetui.engine.retrieval_shortlist import Places, shortlist
from swetui.engine.retrieval_spans import FoundHits, Keep, found_hits, span_title, symbol_spans
from swetui.engine.retrieval_wrappers import follow_wrappers
from swetui.engine.sources import read_workspace_text
from swetui.engine.spans import Span
from swetui.engine.symbols.candidate_weights import WITH_MEANING, LinearRanking
from swetui.engine.symbols.semantic import MODEL, ModelLoader, SemanticRanker
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.workspace_tree import IGNORED_DIRS, MAX_SCAN_FILES, walk
from swetui.files import (
    Refuse,
    SecretRule,
    file_kind,
    read_error,
    refusal,
    source_lines,
)
from swetui.secrets import redact

MAX_FILE_BYTES = 64_000
"""A named file is cut here (the task layer is ≤ 20% of the window)."""
MAX_TERMS = 6
MAX_NAMED_FILES = 8
MAX_NAMED_LINES = 1_000
"""A named file longer than this is cut; what is sent says where and how to read on."""
WHOLE_NAMED_LINES = 150
"""A named file longer than this in which the map finds what the request asks about
(`In httpx/_urlparse.py, where are '..' segments dropped?`) is sent as those spans (their
note says how to read the rest), not whole."""
TASK_TOKENS = 51_200
"""The task layer's budget when the engine has none (20% of a 256k window)."""
FOUND_TOKENS = 8_000
"""What the symbol map and grep may attach together: enough for a few definitions."""


class Excluded(Protocol):
    """Whether retrieval must not read a path (the agent's `SecretRule`, which judges a
    link by its target; `walked`: listed by a walk that follows no link)."""

    def __call__(self, rel: str, walked: bool = False) -> bool: ...


def _by_name(exclude: Callable[[str], bool] | None) -> Excluded | None:
    """`exclude` as retrieval asks it: a `SecretRule` as it is, a plain predicate of names
    (some tests pass `is_secret_file`) asked of the name alone."""
    if exclude is None or isinstance(exclude, SecretRule):
        return exclude

    def excluded(rel: str, walked: bool = False) -> bool:
        return exclude(rel)
    return excluded


TASK_KINDS = frozenset({ItemKind.FILE, ItemKind.SPAN, ItemKind.SHORTLIST, ItemKind.GREP,
                        ItemKind.LISTING})

STOP_WORDS = frozenset("""
a an and are as at be but by can could do does for from has have how i if in into is it its
me my no not of on or our please should so that the their them then there these this to us
was we what when where which who why will with would you your file files code function class
show read find grep search list look fix change add make use run test tests check explain
""".split())

_PATH = re.compile(r"(?<![\w./-])(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,8}(?![\w/-])"
                   r"|(?<![\w./-])(?:[\w.-]+/)+[\w.-]*")
_QUOTED = re.compile(r'"([^"\n]{1,80})"|`([^`\n]{1,80})`|(?<!\w)\'([^\'\n]{1,80})\'(?!\w)')
"""Quoted terms, each pair of quotes matched whole: a one-letter term (`"a" with "b"`) is
skipped afterwards, so the text between two pairs (` with `) is never taken for a term."""
_LISTING = re.compile(
    r"\b(list(ing)?\s+(the\s+|all\s+)?(files|dir|directories|folders)|what'?s\s+in\b|"
    r"(project|repo|repository|directory|folder|file|source|code)\s+(structure|tree|layout)|"
    r"(structure|layout|tree)\s+of\s+(the\s+|this\s+)?"
    r"(project|repo|repository|directory|folder|code|workspace)|\bls\b)", re.IGNORECASE)


@dataclass
class RetrievalResult:
    """The items to add for this request and one line saying what was retrieved."""

    items: list[ContextItem] = field(default_factory=list)
    summary: str = ""
    notes: list[str] = field(default_factory=list)


def _inside(root: Path, candidate: str) -> Path | None:
    path = Path(os.path.realpath(root / candidate))
    real_root = Path(os.path.realpath(root))
    return path if path == real_root or real_root in path.parents else None


def _is_path(token: str, named: list[str]) -> bool:
    """A path-like token that names a file or folder (`httpx/_client.py`, `README.md`), not
    a dotted name (`Client.send`)."""
    token = token.rstrip("/.,:;")
    return "/" in token or any(rel == token or rel.endswith("/" + token) for rel in named)


def search_terms(text: str, named: set[str]) -> list[str]:
    """Quoted terms first, then distinctive identifiers (not the named files, no stop
    words), at most MAX_TERMS."""
    terms: list[str] = []
    for match in _QUOTED.finditer(text):
        term = next(group for group in match.groups() if group is not None).strip()
        if len(term) >= 2 and term not in named and term not in terms:
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
             exclude: Callable[[str], bool] | None = None, symbols: SymbolIndex | None = None,
             budget_tokens: int | None = None,
             semantic: ModelLoader | None = MODEL,
             weights: LinearRanking = WITH_MEANING,
             keep: Keep = FoundHits.all) -> RetrievalResult:
    """Read the files `text` names, attach the definitions it needs from the symbol map
    (named, raising a quoted error, or matching the behaviour it describes), grep what is
    left, list the tree when asked: new task-layer items for `turn` (not yet added), within
    `budget_tokens` (default: what the task layer's budget has left), never repeating what
    the request already carries; described behaviour is ranked by meaning as well as words
    by the encoder `semantic` loads (by words only when None or when it cannot load), the
    candidates chosen among by the learned ranking's `weights` (the shipped ones); `keep`
    says which of the map's hits are attached (all of them).
    Files for which `exclude(rel)` is true (secrets, as the agent decides) are never read."""
    root = Path(root)
    result = RetrievalResult()
    sent = AlreadySent(engine)
    before = AlreadySent(engine)  # what the request carried before this retrieval
    files: list[str] | None = None
    cut = False
    if budget_tokens is None:
        budget = engine.settings.layer_budget(Layer.TASK) or TASK_TOKENS
        budget_tokens = budget - engine.budget().layer(Layer.TASK).tokens
    room = budget_tokens
    # One rule for every path, whichever is asked first (the walk, a named file, the map's
    # hits): excluded by its name or by the name of the file it leads to.
    excluded = _by_name(exclude)
    refuse = refusal(exclude)

    def tree() -> list[str]:
        nonlocal files, cut
        if files is None:
            files, cut = walk(root, ignore, max_files)
            if excluded is not None:  # the walk follows no link: each file is its target
                files = [rel for rel in files if not excluded(rel, walked=True)]
            if cut:
                result.notes.append(f"only the first {max_files:,} files were scanned")
        return files

    def make(kind: ItemKind, title: str, content: str, path: str | None,
             payload: GrepPayload | FilePayload | ShortlistPayload | None = None) -> bool:
        nonlocal room
        key = path or title
        if _shown(sent, kind, key, content):
            if _shown(before, kind, key, content):  # else inside what this request sends
                result.notes.append(f"{key} is already in context")
            return False
        cost = engine.counter.count(content)
        if cost > room:
            result.notes.append(f"{title} left out: {cost:,} tokens, {max(room, 0):,} left "
                                "of the task budget")
            return False
        room -= cost
        sent.add(kind, key, content)
        result.items.append(ContextItem(
            id=engine.new_id("r"), kind=kind, layer=Layer.TASK, title=title, content=content,
            origin=Origin.AUTO, source=Source(path=path, turn_id=f"t{turn}"),
            turn_created=turn, turn_last_used=turn, payload=payload))
        return True

    named, directories = _named_paths(root, text, tree, result)
    if excluded is not None:
        refused = [rel for rel in named if excluded(rel)]
        for rel in refused:
            result.notes.append(f"{rel}: may hold secrets, not read")
        named = [rel for rel in named if rel not in refused]
    found_spans: list[tuple[Span, str]] = []
    places: Places | None = None
    ranker = SemanticRanker(root, semantic, mapped=symbols.by_file,
                            secrets=exclude if isinstance(exclude, SecretRule) else None) \
        if symbols is not None and semantic is not None else None
    prose = _PATH.sub(lambda m: " " if _is_path(m.group(0), named) else m.group(0), text)
    if symbols is not None:
        mapped = follow_wrappers(root, symbols, keep(found_hits(symbols, prose, named, ranker,
                                                                 weights)), excluded)
        found_spans = list(symbol_spans(root, symbols, prose, mapped, exclude=excluded))
        places = shortlist(root, symbols, mapped, excluded)
    spanned = {span.path for span, _body in found_spans} | set(places.paths if places else ())
    listed: list[Places] = []
    for rel in named[:MAX_NAMED_FILES]:
        lines = count_lines(root / rel) if spanned else 0
        if lines > WHOLE_NAMED_LINES and rel in spanned:  # the parts asked about
            result.notes.append(f"{rel}: the parts the request asks about, not all "
                                f"{lines:,} lines")
            continue
        # the question found its answer elsewhere: this file's likeliest places, not its head
        inside = named_places(root, symbols, prose, rel, ranker, weights, excluded) \
            if lines > WHOLE_NAMED_LINES and symbols is not None else None
        if inside is not None:
            result.notes.append(f"{rel}: its likeliest places, not its {lines:,} lines")
            listed.append(inside)
            continue
        _read_named(root, rel, max_file_bytes, make, result, refuse)
    paths = {m.group(0) for m in _PATH.finditer(text)}
    found = 0
    if symbols is not None:
        room_before = room
        for span, body in found_spans:
            found += 1
            tokens = engine.counter.count(body)
            if room_before - room + tokens > FOUND_TOKENS:
                why = (f"retrieval's {FOUND_TOKENS:,}-token share is used"
                       if room_before != room else
                       f"its {tokens:,} tokens are more than retrieval's "
                       f"{FOUND_TOKENS:,}-token share (read_file(path='{span.path}') reads it)")
                result.notes.append(f"{span_title(span)} left out: {why}")
                continue
            make(ItemKind.SPAN, span_title(span), body, span.path)
        if places is not None and any(item.kind is ItemKind.FILE for item in result.items):
            # the request names a file and has it whole: guesses elsewhere are not needed
            result.notes.append(f"{places.title} left out: the file the request names is "
                                "sent whole")
            found += 1
        elif places is not None:
            found += 1
            make(ItemKind.SHORTLIST, places.title, places.block, None,
                 ShortlistPayload(paths=places.paths))
        for inside in listed:
            make(ItemKind.SHORTLIST, inside.title, inside.block, None,
                 ShortlistPayload(paths=inside.paths))
        if ranker is not None and ranker.notice:
            result.notes.append(ranker.notice)
    terms = [] if found else search_terms(text, set(named) | paths)
    if terms:
        hits, scanned, skipped, timed_out = grep(root, tree(), terms, max_hits, time_limit,
                                                 refuse)
        if timed_out:
            result.notes.append(f"grep stopped after {time_limit:.1f}s ({scanned:,} files)")
        quoted = ", ".join(f"'{term}'" for term in terms)
        if hits:
            make(ItemKind.GREP, f"grep {quoted}",
                 f"grep {quoted}: {len(hits)} hits (top {max_hits}; {scanned:,} files "
                 f"scanned; source first)\n" + "\n".join(hits), None,
                 GrepPayload(terms=tuple(terms), hits=len(hits)))
        else:
            passed = f" ({skipped:,} not searched: over 1 MB, binary or unreadable)" \
                if skipped else ""
            result.notes.append(f"grep {quoted}: no matches in {scanned:,} files{passed}")
    if _LISTING.search(text):
        base = directories[0] if directories else ""
        make(ItemKind.LISTING, f"listing of {base or '.'}", listing(tree(), base),
             base or ".")
    # The request's own words come back in the notes (`grep 'X': no matches`): a key the
    # user pasted is said redacted, as everywhere else it is shown.
    result.summary = redact(_summary(result, terms))
    result.notes = [redact(note) for note in result.notes]
    return result


def _shown(sent: AlreadySent, kind: ItemKind, key: str, content: str) -> bool:
    """Whether `content` is in what `sent` holds already (a file's or span's lines nearly
    all shown)."""
    return sent.has(kind, key, content) or (kind in (ItemKind.FILE, ItemKind.SPAN)
                                            and sent.covers(key, source_lines(content)[1:]))


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


def _read_named(root: Path, rel: str, max_bytes: int, make: Callable[..., bool],
                result: RetrievalResult, refuse: Refuse | None) -> None:
    """A file the request names, whole when it fits, else its first lines and a note (in
    what is sent) saying how many lines of how many are shown and how to read on."""
    try:
        loaded = read_workspace_text(root, rel, max_bytes, refuse)
    except OSError as exc:
        result.notes.append(read_error(rel, exc))
        return
    if loaded is None:
        result.notes.append(f"{rel}: binary file, not read")
        return
    note = f" ({'; '.join(loaded.notes)})" if loaded.notes else ""
    text = loaded.text
    lines = source_lines(text)
    cut_by_bytes = loaded.cut
    if cut_by_bytes or len(lines) > MAX_NAMED_LINES:
        total = count_lines(root / rel)
        shown = lines[:MAX_NAMED_LINES]
        if cut_by_bytes and len(shown) > 1 and not text.endswith("\n"):
            shown = shown[:-1]  # the cut fell inside a line: keep whole lines only
        of = f"{total:,}" if total else "more"
        how = (f"read_file(path={rel!r}, offset={len(shown) + 1})" if len(shown) < total
               else f"a command such as `head -c`/`tail -c` on {rel!r} (its lines are long)")
        text = "\n".join(shown) + (f"\n[{rel}: cut ({'; '.join(loaded.notes) or 'long file'}"
                                    f"), lines 1-{len(shown):,} of {of} shown. Read on with "
                                    f"{how}]")
    make(ItemKind.FILE, f"{rel}{note}", text, rel, FilePayload(mtime_ns=loaded.mtime_ns))


def _summary(result: RetrievalResult, terms: list[str]) -> str:
    parts = []
    files = [i.source.path for i in result.items if i.kind is ItemKind.FILE]
    if files:
        parts.append("read " + ", ".join(p for p in files if p))
    for item in result.items:
        if item.kind in (ItemKind.SPAN, ItemKind.SHORTLIST):
            parts.append(item.title)
        elif item.kind is ItemKind.GREP:
            hits = item.payload.hits if isinstance(item.payload, GrepPayload) else 0
            parts.append(f"{item.title} → {hits} {'hit' if hits == 1 else 'hits'}")
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
