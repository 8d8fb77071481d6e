"""The hand-set words-and-meaning mix the refit script compares the learned ranking with
(`bench/words_and_meaning.py`): meaning breaks a tie the words leave, and whatever the scores
and cosines it drops nothing, keeps the candidates past the first ten in their order below
them, and returns them best first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.words_and_meaning import words_and_meaning
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.learned_ranking import CANDIDATES
from swetui.engine.symbols.semantic import Scored

POOL = [Definition(f"helper_{n}", f"helper_{n}", "function", 10 * n + 1, 10 * n + 5)
        for n in range(8)]


def test_meaning_breaks_a_tie_between_equal_word_scores() -> None:
    first, second = POOL[0], POOL[1]
    for order in ((first, second), (second, first)):
        scored: list[Scored] = [(1.0, "net.py", d) for d in order]
        cosines = [0.7 if d is second else 0.2 for d in order]
        assert words_and_meaning(scored, cosines)[0][2] is second


@given(st.lists(st.tuples(st.sampled_from(POOL), st.floats(0.01, 50.0),
                          st.floats(-1.0, 1.0)), min_size=1, max_size=2 * CANDIDATES + 5))
def test_the_mix_drops_nothing_and_keeps_the_tail_in_order(
        drawn: list[tuple[Definition, float, float]]) -> None:
    """Law: the same definitions come back, best first, and those past the first
    CANDIDATES in the order the words gave them."""
    ranked = sorted(drawn, key=lambda e: -e[1])
    scored: list[Scored] = [(score, "net.py", d) for d, score, _c in ranked]
    cosines = [cosine for _d, _s, cosine in ranked[:CANDIDATES]]
    out = words_and_meaning(scored, cosines)
    assert sorted(id(d) for _s, _r, d in out) == sorted(id(d) for _s, _r, d in scored)
    assert [d for _s, _r, d in out[CANDIDATES:]] == [d for _s, _r, d in scored[CANDIDATES:]]
    assert all(a[0] >= b[0] for a, b in zip(out, out[1:], strict=False))
