"""The learned choice among a described request's candidates: what its features see (how much
the code uses a function, where a definition lives), that it chooses by meaning among
definitions the words cannot tell apart, that its order does not depend on the order the
candidates arrive in, that its scores are finite whatever the features, and that the shipped
weights are what the refit script makes of the development labels."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.fit_candidate_ranking import GROUPS, load_groups
from bench.listwise_ranking import Group, fit
from swetui.engine.retrieval_spans import find_hits
from swetui.engine.symbols import candidate_weights
from swetui.engine.symbols.candidate_features import FEATURES, rows
from swetui.engine.symbols.candidate_weights import LinearRanking
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.learned_ranking import CANDIDATES, ordered, score_rows
from swetui.engine.symbols.lookup import (
    Relevance,
    Scored,
    described,
    file_weight,
    request_of,
)
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap

SHIPPED = candidate_weights.WITH_MEANING

CORE = '''\
def normalize_header(value):
    """Lower-case a header name and strip its spaces."""
    return value.strip().lower()


def parse_headers(lines):
    return [normalize_header(line) for line in lines]


def merge_headers(a, b):
    return [normalize_header(x) for x in a + b]


def copy_headers(headers):
    return [normalize_header(h) for h in headers]


def print_headers(headers):
    for h in headers:
        print(normalize_header(h))


def unused_header_helper(value):
    """Lower-case a header value."""
    return value.lower()
'''

TWINS = '''\
def read_timeout_setting(config):
    """Read the timeout setting from the config."""
    return config.timeout


def read_retry_setting(config):
    """Read the timeout setting from the config."""
    return config.retries
'''


def _index(root: Path) -> SymbolIndex:
    built = SymbolMap(root)
    built.build()
    return built.index()


def _workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "project"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_a_function_the_code_uses_everywhere_is_seen_as_more_used(tmp_path: Path) -> None:
    index = _index(_workspace(tmp_path, {"pkg/headers.py": CORE}))
    text = "How is a header name lower-cased?"
    scores, top = _candidates(index, text)
    found = rows(index, request_of(scores), top, [0.5] * len(top), file_weight)
    column = FEATURES.index("log_referenced")
    used = {d.name: row[column] for (_s, _r, d), row in zip(top, found, strict=True)}
    assert used["normalize_header"] > used["unused_header_helper"]


def _candidates(index: SymbolIndex, text: str) -> tuple[Relevance, list[Scored]]:
    scores = Relevance(index, text)
    return scores, scores.ranked()[:CANDIDATES]


def test_a_definition_in_tests_is_seen_as_not_source_and_ranks_below_its_twin(
        tmp_path: Path) -> None:
    same = 'def strip_header_spaces(value):\n    """Strip spaces around a header."""\n' \
           '    return value.strip()\n'
    root = _workspace(tmp_path, {"pkg/headers.py": same, "tests/test_headers.py": same})
    index = _index(root)
    text = "How are the spaces around a header stripped in the tests?"
    scores, top = _candidates(index, text)
    assert {rel for _s, rel, _d in top} == {"pkg/headers.py", "tests/test_headers.py"}
    found = rows(index, request_of(scores), top, [0.5] * len(top), file_weight)
    column = FEATURES.index("not_source")
    flags = {rel: row[column] for (_s, rel, _d), row in zip(top, found, strict=True)}
    assert flags == {"pkg/headers.py": 0.0, "tests/test_headers.py": 1.0}
    chosen = ordered(index, request_of(scores), top, [0.5] * len(top), file_weight,
                     SHIPPED)
    assert [rel for _s, rel, _d in chosen] == ["pkg/headers.py", "tests/test_headers.py"]
    assert chosen[0][0] > chosen[1][0]  # by its score, not by the order of the names
    hits = described(index, text, rerank=_Closeness({}))
    assert hits[0].path == "pkg/headers.py"


class _Closeness:
    """Cosines given per definition name (0.3 for the others): the meaning model's part."""

    def __init__(self, by_name: dict[str, float]) -> None:
        self.by_name = by_name

    def cosines(self, text: str, candidates: list[Scored]) -> list[float] | None:
        return [self.by_name.get(d.name, 0.3) for _s, _r, d in candidates]


def test_meaning_chooses_between_definitions_the_words_cannot_tell_apart(
        tmp_path: Path) -> None:
    index = _index(_workspace(tmp_path, {"pkg/settings.py": TWINS}))
    text = "Where is the timeout setting read from the config?"
    for closer in ("read_timeout_setting", "read_retry_setting"):
        hits = described(index, text, rerank=_Closeness({closer: 0.8}))
        assert hits[0].definition is not None and hits[0].definition.name == closer


def test_the_weights_given_decide_the_choice_not_a_global(tmp_path: Path) -> None:
    """Each caller passes its weights (the benchmark's leave-one-set-out run one fold's
    while retrieval keeps the shipped ones): weights that count meaning against a candidate
    choose the other twin, and the shipped weights still choose by meaning afterwards."""
    index = _index(_workspace(tmp_path, {"pkg/settings.py": TWINS}))
    text = "Where is the timeout setting read from the config?"
    closeness = _Closeness({"read_timeout_setting": 0.8})
    contrary = LinearRanking.of(margin=0.0, rows=(("meaning", 0.5, 0.1, -1.0),))
    against = described(index, text, rerank=closeness, weights=contrary)
    assert against[0].definition is not None
    assert against[0].definition.name == "read_retry_setting"
    found = find_hits(index, text, rerank=closeness, weights=contrary)
    assert found[0].definition is not None
    assert found[0].definition.name == "read_retry_setting"
    shipped = described(index, text, rerank=closeness)
    assert shipped[0].definition is not None
    assert shipped[0].definition.name == "read_timeout_setting"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[SymbolIndex, str]:
    """One small map for all the law's examples (built once: a map per example is slow)."""
    folder = tmp_path_factory.mktemp("ltr")
    return _index(_workspace(folder, {"pkg/headers.py": CORE, "pkg/settings.py": TWINS})), \
        "How is a header name or setting value lower-cased and read?"


@given(st.permutations(range(6)), st.lists(st.floats(-1.0, 1.0), min_size=6, max_size=6))
def test_the_order_does_not_depend_on_the_order_candidates_arrive_in(
        shared: tuple[SymbolIndex, str], permutation: list[int], cosines: list[float]) -> None:
    """Law: any arrival order of the same candidates (and their cosines) gives the same
    ranking."""
    index, text = shared
    scores, top = _candidates(index, text)
    top = top[:6]
    cosines = cosines[:len(top)]
    first = ordered(index, request_of(scores), top, cosines, file_weight, SHIPPED)
    shuffled = [top[n] for n in permutation if n < len(top)]
    moved = [cosines[n] for n in permutation if n < len(top)]
    again = ordered(index, request_of(scores), shuffled, moved, file_weight, SHIPPED)
    assert [(r, d.qualname) for _s, r, d in again] == [(r, d.qualname) for _s, r, d in first]
    assert [s for s, _r, _d in again] == [s for s, _r, _d in first]


@given(st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True),
                         min_size=len(FEATURES), max_size=len(FEATURES)), max_size=12))
def test_learned_scores_are_finite_whatever_the_features(found: list[list[float]]) -> None:
    """Law: a score is a finite number for any row, even one with an infinite or missing
    feature (that feature is left out of the sum)."""
    values = score_rows(candidate_weights.WITH_MEANING, found)
    assert len(values) == len(found)
    assert all(math.isfinite(v) for v in values)


def test_the_refit_script_reproduces_the_shipped_weights() -> None:
    groups: list[Group] = load_groups(GROUPS)
    assert {g.set_name for g in groups} == {
        "tuned", "tuned 2", "held out 1", "held out 2", "held out 3", "held out 4",
        "held out 5", "held out 6", "held out 7", "held out 8"}
    refit = fit(groups, True)
    shipped = candidate_weights.WITH_MEANING
    assert refit.features == shipped.features
    assert refit.margin == shipped.margin
    for name, a, b in zip(refit.features, refit.weights, shipped.weights, strict=True):
        assert abs(a - b) < 1e-3, name
    for a, b in zip(refit.means + refit.scales, shipped.means + shipped.scales, strict=True):
        assert abs(a - b) < 1e-4


def test_a_definition_with_lines_out_of_order_still_gets_finite_features(
        tmp_path: Path) -> None:
    """A map entry whose last line is before its first (a stale or odd parse) must not
    break the request: its size counts as one line."""
    index = _index(_workspace(tmp_path, {"pkg/settings.py": TWINS}))
    scores, top = _candidates(index, "Where is the timeout setting read?")
    score, rel, definition = top[0]
    odd = Definition(definition.name, definition.qualname, definition.kind, 50, 3,
                     definition.doc, definition.body)
    found = rows(index, request_of(scores), [(score, rel, odd), *top[1:]],
                 [0.5] * len(top), file_weight)
    assert all(math.isfinite(value) for row in found for value in row)
