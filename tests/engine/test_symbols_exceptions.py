"""Whether a class is an exception: its name says so or one of its bases' does. Each name is
looked at once, so classes listing many others as bases (a planted workspace) cost a pass
over them, not a walk of every path through them (before: hours for 24 such classes, on every
described request, once exception classes stopped being candidates)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols.exceptions import EXCEPTION_ENDINGS, MAX_DEPTH, is_exception
from swetui.engine.symbols.extract import Definition


class CountingNames(dict[str, list[tuple[str, Definition]]]):
    """`by_name`, counting the names looked up."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.asked: Counter[str] = Counter()

    def get(self, key: str, default: object = None) -> list[tuple[str, Definition]]:
        self.asked[key] += 1
        return super().get(key, default)  # type: ignore[arg-type]


def _index(bases: dict[str, list[str]]) -> SimpleNamespace:
    return SimpleNamespace(by_name=CountingNames({
        name: [("graph.py", Definition(name, name, "class", 1, 2, bases=tuple(parents)))]
        for name, parents in bases.items()}))


def _walk(index: SimpleNamespace, name: str, path: frozenset[str] = frozenset()) -> bool:
    """The definition, path by path (exponential; small graphs only)."""
    if name.endswith(EXCEPTION_ENDINGS):
        return True
    if name in path or len(path) > MAX_DEPTH:
        return False
    return any(d.kind == "class" and any(_walk(index, b, path | {name}) for b in d.bases)
               for _rel, d in dict.get(index.by_name, name, []))


def test_a_dense_base_graph_is_looked_through_once() -> None:
    names = [f"Node{n}" for n in range(7)]
    index = _index({name: [other for other in names if other != name] for name in names})
    assert not is_exception(index, "Node0")  # type: ignore[arg-type]
    assert max(index.by_name.asked.values()) == 1


def test_an_exception_several_generations_up() -> None:
    index = _index({"RequestRedirect": ["HTTPException", "RoutingRule"],
                    "RoutingRule": ["Base"], "Base": []})
    assert is_exception(index, "RequestRedirect")  # type: ignore[arg-type]
    assert not is_exception(index, "RoutingRule")  # type: ignore[arg-type]


NAMES = ["A", "B", "C", "D", "E", "F", "AError", "BWarning"]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), st.lists(st.sampled_from(NAMES), max_size=3),
                       max_size=len(NAMES)),
       st.sampled_from(NAMES))
def test_it_agrees_with_the_walk_of_every_path(bases: dict[str, list[str]], name: str) -> None:
    index = _index(bases)
    assert is_exception(index, name) == _walk(index, name)  # type: ignore[arg-type]
