"""When the learned ranking is not sure which definition a described request is about, the
request gets a shortlist (one line per likely definition: where it is, its signature) instead
of the code of a guess; when it is sure, the code. Plus the probability share the choice
rests on, and what a shortlist leaves out (secrets, files changed since they were mapped)."""

from __future__ import annotations

import math
import re
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from swetui.agent.sensitive import is_secret_file
from swetui.agent.tools.base import ReadFileArgs
from swetui.engine.assembly import context_block
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_shortlist import HEADING, MAX_KEYWORDS, pointer, shortlist
from swetui.engine.retrieval_spans import find_hits
from swetui.engine.symbols import learned_ranking
from swetui.engine.symbols.candidate_weights import WITH_MEANING
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.learned_ranking import first_share
from swetui.engine.symbols.lookup import (
    PRECISION_TARGET,
    SHORTLIST,
    Relevance,
    Scored,
    candidates,
    file_weight,
    place_share,
    request_of,
)
from swetui.engine.symbols.semantic import MODEL
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.watcher import apply_change
from swetui.secrets import STORE
from tests.engine.helpers import mapped_workspace

TWINS = '''\
import functools


@functools.cache
def backoff_delay_{n}(attempt):
    """How long to wait before the next attempt of a retried upload."""
    return min(60, 2 ** attempt)
'''
"""Definitions the request's words and meaning cannot tell apart: the ranking is unsure."""
REQUEST = "How long do we wait before the next attempt of a retried upload?"


class EvenMeaning:
    """Closeness in meaning the same for every candidate (the model, undecided)."""

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        return [0.5] * len(candidates)


_workspace = mapped_workspace


def _twins(root: Path, count: int = 4) -> SymbolIndex:
    return _workspace(root, {f"pkg/upload_{n}.py": TWINS.format(n=n) for n in range(count)})


def test_an_unsure_choice_attaches_where_to_read_not_a_guess(tmp_path: Path) -> None:
    index = _twins(tmp_path)
    found = retrieve(tmp_path, REQUEST, ContextEngine(), turn=1, symbols=index,
                     semantic=MODEL)
    kinds = [item.kind for item in found.items]
    assert kinds == [ItemKind.SHORTLIST], found.summary
    [item] = found.items
    heading, *entries = item.content.split("\n")
    assert "Likely places" in heading and "read_file" in heading
    assert len(entries) == 4
    for entry in entries:
        where, _, said = entry.partition(": ")
        path, lines = where.rsplit(":", 1)
        # the lines named are the definition's (from its `def` line); the entry says what
        # and where, not its code
        assert lines == "5-7"
        shown = (tmp_path / path).read_text().split("\n")[5 - 1]
        assert shown.startswith("def backoff_delay_")
        name = shown.split("(")[0].removeprefix("def ")
        assert said == f"def {name}"
    assert "likely places: backoff_delay_" in item.title
    # the element it is sent in does not list the names again: its heading says what it is
    assert context_block(item).split("\n")[0] == f'<context id="{item.id}" kind="shortlist">'


def test_a_shortlist_goes_stale_when_a_file_it_points_into_changes(tmp_path: Path) -> None:
    index = _twins(tmp_path)
    (tmp_path / "notes.py").write_text("X = 1\n")
    engine = ContextEngine()
    found = retrieve(tmp_path, REQUEST, engine, turn=1, symbols=index, semantic=MODEL)
    [item] = found.items
    engine.add(item)
    # kept across a session log: the payload names the files it points into
    assert ContextItem.model_validate_json(item.model_dump_json()) == item
    assert apply_change(engine, tmp_path, "notes.py", deleted=False) == []
    assert engine.get(item.id).state is ItemState.INCLUDED
    listed = "pkg/upload_2.py"
    (tmp_path / listed).write_text("# one line more\n" + TWINS.format(n=2))
    assert apply_change(engine, tmp_path, listed, deleted=False) == [item.id]
    stale = engine.get(item.id)
    assert stale.state is ItemState.STALE
    assert stale.stale_reason == f"{listed} changed on disk since it was retrieved"


def test_a_sure_choice_attaches_its_code(tmp_path: Path) -> None:
    index = _workspace(tmp_path, {
        "pkg/retry.py": TWINS.format(n=0),
        "pkg/net.py": 'def open_socket(host, port):\n    """Connect a TCP socket."""\n',
    })
    found = retrieve(tmp_path, REQUEST, ContextEngine(), turn=1, symbols=index,
                     semantic=MODEL)
    assert [item.kind for item in found.items] == [ItemKind.SPAN], found.summary
    assert "def backoff_delay_0(attempt):" in found.items[0].content


class MeaningByFile:
    """Closeness in meaning given per file (each file here holds one candidate)."""

    def __init__(self, cosines: dict[str, float]) -> None:
        self.by_file = cosines

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        return [self.by_file[rel] for _score, rel, _definition in candidates]


def test_a_lean_short_of_the_precision_target_attaches_where_to_read(tmp_path: Path
                                                                     ) -> None:
    """Two alike definitions, the model leaning to one (cosines 0.6 and 0.5): more likely
    than not the first, but not as likely as attached code should be right, so both are
    listed as places to read; leaning far (0.9 and 0.3), the first one's code."""
    index = _twins(tmp_path, 2)
    leaning = find_hits(index, REQUEST, rerank=MeaningByFile(
        {"pkg/upload_0.py": 0.6, "pkg/upload_1.py": 0.5}))
    assert [(hit.path, hit.how) for hit in leaning] == [
        ("pkg/upload_0.py", "candidate"), ("pkg/upload_1.py", "candidate")]
    sure = find_hits(index, REQUEST, rerank=MeaningByFile(
        {"pkg/upload_0.py": 0.9, "pkg/upload_1.py": 0.3}))
    assert [(hit.path, hit.how) for hit in sure][:1] == [("pkg/upload_0.py", "described")]


def test_code_is_attached_only_when_it_is_as_likely_right_as_the_target(tmp_path: Path
                                                                        ) -> None:
    """Law: a described request gets the code of its first candidate exactly when the
    learned ranking (a softmax) gives that candidate at least PRECISION_TARGET of the
    probability (worked out here from its scores); a shortlist otherwise."""
    index = _twins(tmp_path, 3)
    scores = Relevance(index, REQUEST)
    top = candidates(scores, REQUEST)
    files = sorted(rel for _s, rel, _d in top)

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.floats(0.0, 1.0), min_size=len(files), max_size=len(files)))
    def law(cosines: list[float]) -> None:
        meaning = MeaningByFile(dict(zip(files, cosines, strict=True)))
        learned = [value for value, _rel, _d in learned_ranking.ordered(
            index, request_of(scores), top, meaning.cosines(REQUEST, top) or [],
            file_weight, WITH_MEANING)]
        probability = 1.0 / sum(math.exp(value - learned[0]) for value in learned)
        assume(abs(probability - PRECISION_TARGET) > 1e-6)
        hows = {hit.how for hit in find_hits(index, REQUEST, rerank=meaning)}
        assert hows == ({"described"} if probability > PRECISION_TARGET else {"candidate"})

    law()


def test_a_shortlist_brings_nothing_around_its_guesses(tmp_path: Path) -> None:
    index = _twins(tmp_path, 8)
    hits = find_hits(index, REQUEST, rerank=EvenMeaning())
    assert hits and all(hit.how == "candidate" for hit in hits)
    assert len(hits) == SHORTLIST  # no callees, no neighbours: pointers only


def test_a_shortlist_leaves_out_secrets_and_files_changed_since_mapped(tmp_path: Path) -> None:
    index = _twins(tmp_path)
    hits = find_hits(index, REQUEST, rerank=EvenMeaning())
    paths = sorted(hit.path for hit in hits)
    (tmp_path / paths[0]).write_text("# rewritten\n" + TWINS.format(n=0))  # one line more
    secret = paths[1]
    made = shortlist(tmp_path, index, hits, lambda rel: rel == secret or is_secret_file(rel))
    assert made is not None
    assert paths[0] not in made.block and secret not in made.block
    assert all(path in made.block for path in paths[2:])
    assert sorted(made.paths) == paths[2:]  # the files it points into: those it lists
    assert shortlist(tmp_path, index, hits, lambda rel: True) is None


@given(st.lists(st.floats(-50, 50), min_size=1, max_size=12), st.floats(-1e3, 1e3))
def test_the_first_share_is_a_probability_of_the_best(scores: list[float], shift: float
                                                       ) -> None:
    share = first_share(scores)
    assert 1 / len(scores) - 1e-9 <= share <= 1.0
    assert math.isclose(share, first_share([s + shift for s in scores]), rel_tol=1e-9)
    if len(set(scores)) == 1:
        assert math.isclose(share, 1 / len(scores))
    raised = [*scores]
    raised[scores.index(max(scores))] += 1.0
    assert first_share(raised) > share or math.isclose(share, 1.0)


def test_a_key_on_a_long_signature_line_is_redacted_whole(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "Q" * 90
    long = TWINS.replace("(attempt):", f'(attempt, key="{key}"):')
    index = _workspace(tmp_path, {f"pkg/upload_{n}.py": long.format(n=n) for n in range(4)})
    hits = find_hits(index, REQUEST, rerank=EvenMeaning())
    STORE.load({"ANTHROPIC_API_KEY": key})
    try:
        made = shortlist(tmp_path, index, hits)
    finally:
        STORE.clear()
    assert made is not None
    assert "QQQQQQQQ" not in made.block  # cut after redaction, not before: no piece of the key


def test_no_shortlist_beside_a_file_the_request_names_and_gets_whole(tmp_path: Path) -> None:
    index = _workspace(tmp_path, {
        **{f"pkg/upload_{n}.py": TWINS.format(n=n) for n in range(4)},
        "pkg/notes.py": "# Upload notes: retries wait longer each attempt.\n",
    })  # nothing in the named file says the request's words: the guesses are elsewhere
    found = retrieve(tmp_path, f"pkg/notes.py - {REQUEST}", ContextEngine(), turn=1,
                     symbols=index, semantic=MODEL)
    # the file it points to, not guesses elsewhere beside it
    assert [item.kind for item in found.items] == [ItemKind.FILE], found.summary
    assert "likely places" in found.summary and "left out" in found.summary


def test_an_entry_points_to_code_without_sending_it(tmp_path: Path) -> None:
    """A shortlist's entries are mostly guesses: each says what and where (how its line
    declares it, its qualified name, its lines), not the signature's code."""
    long = TWINS.replace("def backoff_delay_{n}(attempt):",
                         "async def backoff_delay_{n}(\n    attempt: int, *, cap: float = "
                         "60.0, jitter: Callable[[float], float] | None = None\n) -> float:")
    index = _workspace(tmp_path, {f"pkg/upload_{n}.py": long.format(n=n) for n in range(4)})
    hits = find_hits(index, REQUEST, rerank=EvenMeaning())
    made = shortlist(tmp_path, index, hits)
    assert made is not None
    _heading, *entries = made.block.split("\n")
    assert len(entries) == 4
    for entry in entries:
        assert "attempt" not in entry and "jitter" not in entry and "->" not in entry
        where, _, said = entry.partition(": ")
        assert where.endswith(":5-9")  # from the line saying the name, past the decorator
        assert said.startswith("async def backoff_delay_") and said[-1].isdigit()


_WORDS = st.lists(st.sampled_from(["def", "async", "class", "pub", "fn", "export", "static",
                                   "function"]), max_size=4)
_IDENTIFIER = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)


@given(_WORDS, _IDENTIFIER, st.text(max_size=60))
def test_a_pointer_is_the_declaring_words_and_the_name(words: list[str], name: str,
                                                        rest: str) -> None:
    """Law: whatever the line holds after the name, a pointer is the words declaring it
    (when that is all that comes before it) and the qualified name, nothing more."""
    assume(name not in words)
    qualname = f"Owner.{name}"
    definition = Definition(name, qualname, "method", 3, 9)
    line = "    " + "".join(f"{word} " for word in words) + name + \
        ("" if not rest or rest[0].isalnum() or rest[0] == "_" else rest)
    said = pointer(definition, line)
    assert said == "".join(f"{word} " for word in words) + qualname


@given(st.text(max_size=80), _IDENTIFIER)
def test_a_pointer_never_carries_the_lines_code(line: str, name: str) -> None:
    """Law: on any line, a pointer is at most a few words and the qualified name: no
    symbol, digit or string of the line gets into the shortlist."""
    said = pointer(Definition(name, f"pkg.{name}", "function", 1, 2), line)
    assert said.endswith(f"pkg.{name}")
    before = said[:-len(f"pkg.{name}")]
    assert len(before) <= MAX_KEYWORDS and all(c.isalpha() or c in "_ " for c in before)


def test_the_heading_tells_the_model_arguments_read_file_takes() -> None:
    """Entries are pointers: the model must call read_file to see one, as the heading says.
    It said read_file(path, start_line, end_line), which read_file refuses (it takes
    offset and limit; unknown arguments are an error), costing the model a turn."""
    call = re.search(r"read_file\(([^)]*)\)", HEADING)
    assert call is not None
    names = [part.split("=")[0].strip() for part in call.group(1).split(",")]
    ReadFileArgs(**{name: ("src/a.py" if name == "path" else 517) for name in names})


VALIDATORS = {
    f"{name.lower()}s.py": f"""
class {name}:
    def validate(self, data):
        \"\"\"Check that the {what}.\"\"\"
        if {test}:
            raise ValueError("bad {field}")
"""
    for name, what, test, field in (
        ("User", "e-mail address is well formed", '"@" not in data["email"]', "email"),
        ("Order", "order's quantity is positive", 'data["quantity"] <= 0', "quantity"),
        ("Item", "item's price is not negative", 'data["price"] < 0', "price"))}


def test_a_method_and_its_class_are_one_place_not_a_doubt(tmp_path: Path) -> None:
    """Three classes of one `validate` each: the request's method ranks first and its own
    class second (0.67 of the probability alone). Both are one block of code to read, so
    the request gets that code; it got a shortlist naming that method only."""
    index = mapped_workspace(tmp_path, VALIDATORS)
    found = retrieve(tmp_path, "what rejects an order with zero quantity?", ContextEngine(),
                     turn=1, symbols=index, semantic=MODEL)
    assert [item.kind for item in found.items] == [ItemKind.SPAN], found.summary
    assert 'if data["quantity"] <= 0:' in found.items[0].content


_PLACES = st.lists(st.tuples(st.floats(-5.0, 5.0), st.sampled_from(["a.py", "b.py"]),
                             st.integers(1, 30), st.integers(0, 10)), min_size=1, max_size=8)


@given(_PLACES)
def test_the_first_places_share_is_the_first_ones_plus_what_lies_around_or_inside_it(
        places: list[tuple[float, str, int, int]]) -> None:
    """Law: the first pick's place holds at least the first's share and at most all of it;
    exactly the first's share when the others are elsewhere (another file), and all of it
    when every other candidate lies inside the first."""
    chosen = [(score, rel, Definition(f"d{n}", f"d{n}", "function", start, start + length))
              for n, (score, rel, start, length) in enumerate(places)]
    first = first_share([score for score, _r, _d in chosen])
    assert first - 1e-9 <= place_share(chosen) <= 1 + 1e-9
    best = max(chosen, key=lambda candidate: candidate[0])
    elsewhere = [best, *((score, "other.py", d) for score, _r, d in chosen if d is not best[2])]
    assert math.isclose(place_share(elsewhere), first, rel_tol=1e-9)
    around = Definition("outer", "outer", "class", 1, 100)
    inside = [(best[0] + 1.0, best[1], around), *chosen]
    assert math.isclose(place_share(inside), 1.0) or any(
        rel != best[1] for _s, rel, _d in chosen)
