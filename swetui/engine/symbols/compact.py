"""Compact forms of what the symbol map keeps for every definition and file, so a restart
loads a 10,000-file workspace's map in a fraction of the memory Python's sets and lists
take: `StemSet`, a small immutable set of strings kept as a tuple (the map holds
three per definition, a 10,000-file workspace has about 250,000 definitions, and a set of
ten stems takes about 730 bytes where the tuple takes 120; membership is a scan in C — nine
sets in ten hold fewer than 16 stems — and the set operations the look-ups use answer as a
frozenset would); `Literals` (`packed_literals`), a file's string literals, compressed;
`References`, a file's referenced names beside an array of their counts; and `shared_line`,
one int object per line number."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Set
from typing import Any

from swetui.engine.symbols.packed_literals import Literal as Literal
from swetui.engine.symbols.packed_literals import Literals as Literals


class StemSet(tuple[str, ...], Set[str]):
    """`frozenset(items)`, stored as its members (each once, in no particular order)."""

    __slots__ = ()

    def __new__(cls, items: Iterable[str] = ()) -> StemSet:
        return super().__new__(cls, items if isinstance(items, (set, frozenset)) else set(items))

    # `in`, `len` and iteration are the tuple's own (in C; defining them here would route
    # every `stem in doc` through Python).

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StemSet):
            return len(other) == len(self) and frozenset(other).issuperset(self)
        if isinstance(other, (set, frozenset)):
            return len(other) == len(self) and other.issuperset(self)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __le__(self, other: Any) -> bool:
        return bool(frozenset(self) <= other)

    def __lt__(self, other: Any) -> bool:
        return bool(frozenset(self) < other)

    def __ge__(self, other: Any) -> bool:
        return bool(frozenset(self) >= other)

    def __gt__(self, other: Any) -> bool:
        return bool(frozenset(self) > other)

    def __hash__(self) -> int:
        return hash(frozenset(self))

    def __repr__(self) -> str:
        return f"StemSet({sorted(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (StemSet, (tuple(self),))

    def __sub__(self, other: Iterable[Any]) -> frozenset[str]:
        return frozenset(self).difference(other)

    def __rsub__(self, other: Iterable[Any]) -> Any:
        return other.difference(self) if isinstance(other, (set, frozenset)) else NotImplemented

    def __or__(self, other: Iterable[Any]) -> frozenset[Any]:
        return frozenset(self).union(other)

    def __ror__(self, other: Iterable[Any]) -> Any:
        return other.union(self) if isinstance(other, (set, frozenset)) else NotImplemented

    def __and__(self, other: Iterable[Any]) -> frozenset[str]:
        return frozenset(self).intersection(other)

    def __rand__(self, other: Iterable[Any]) -> Any:
        return other.intersection(self) if isinstance(other, (set, frozenset)) else NotImplemented

    def isdisjoint(self, other: Iterable[Any]) -> bool:
        return frozenset(self).isdisjoint(other)

    def union(self, *others: Iterable[str]) -> frozenset[str]:
        return frozenset(self).union(*others)

    def intersection(self, *others: Iterable[Any]) -> frozenset[str]:
        return frozenset(self).intersection(*others)

    def difference(self, *others: Iterable[Any]) -> frozenset[str]:
        return frozenset(self).difference(*others)

    def issubset(self, other: Iterable[Any]) -> bool:
        return frozenset(self).issubset(other)

    def issuperset(self, other: Iterable[Any]) -> bool:
        return frozenset(self).issuperset(other)


EMPTY = StemSet()
"""The empty set every definition without words shares."""


def stem_set(items: Iterable[str]) -> StemSet:
    """`items` as a StemSet (the shared empty one when there are none)."""
    found = StemSet(items)
    return found if found else EMPTY


_LINES: dict[int, int] = {}
MAX_SHARED_LINE = 2_000_000
"""Line numbers up to this are shared (a file the map reads is at most 1 MB)."""


def shared_line(value: int) -> int:
    """`value`, as the one int object the map keeps for that line number: Python keeps one
    only for -5 to 256, and a 10,000-file map held about 450,000 ints of 32 bytes for its
    definitions' first and last lines (a few thousand distinct ones). Other values (a
    float, a bool, a huge number a damaged cache row gives) are returned as they are."""
    if type(value) is int and 256 < value <= MAX_SHARED_LINE:
        return _LINES.setdefault(value, value)
    return value


class References(Mapping[str, int]):
    """How often a file names each name, packed: the names in a tuple, their counts in an
    array of 4-byte numbers beside it (12 bytes a name, where a dict took about 40; a
    10,000-file workspace has over 800,000). Read whole (`items`), as the index does;
    looking up one name scans them."""

    __slots__ = ("_counts", "_names")

    def __init__(self, counts: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        pairs = counts.items() if isinstance(counts, Mapping) else counts
        names: list[str] = []
        numbers = array("I")
        for name, count in pairs:
            names.append(name)
            numbers.append(count)
        self._names, self._counts = tuple(names), numbers
        self._check()

    @classmethod
    def from_columns(cls, names: Iterable[str], counts: Iterable[int]) -> References:
        """The references `encode` stored as two columns (no Python step per name: a restart
        reads over 800,000); ValueError, TypeError or OverflowError when they do not fit."""
        packed = cls.__new__(cls)
        packed._names, packed._counts = tuple(names), array("I", counts)
        packed._check()
        return packed

    def _check(self) -> None:
        if len(self._names) != len(self._counts) or len(set(self._names)) != len(self._names):
            raise ValueError("names and counts differ in length, or a name is counted twice")

    def __getitem__(self, name: str) -> int:
        try:
            return self._counts[self._names.index(name)]
        except ValueError:
            raise KeyError(name) from None

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def items(self) -> Iterable[tuple[str, int]]:  # type: ignore[override]
        return zip(self._names, self._counts, strict=True)

    def values(self) -> Iterable[int]:  # type: ignore[override]
        return iter(self._counts)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return len(self) == len(other) and dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"References({dict(self.items())!r})"
