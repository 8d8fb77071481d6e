"""Compact forms of what the symbol map keeps for every definition and file, so a restart
loads a 10,000-file workspace's map in a fraction of the memory Python's sets and lists
take: `StemSet`, a small immutable set of strings kept as a tuple (the map holds
three per definition, a 10,000-file workspace has about 250,000 definitions, and a set of
ten stems takes about 730 bytes where the tuple takes 120; membership is a scan in C — nine
sets in ten hold fewer than 16 stems — and the set operations the look-ups use answer as a
frozenset would), and `Literals`, a file's string literals packed in two arrays and a
tuple."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence, Set
from itertools import accumulate, chain
from operator import itemgetter
from typing import Any, overload


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


Literal = tuple[int, tuple[str, ...]]
"""(line, fixed parts) of one string literal."""


class Literals(Sequence[Literal]):
    """A file's string literals, `(line, parts)` in order, packed: the lines and where each
    literal's parts end in two arrays, all the parts in one tuple (about 20 bytes a literal
    where a list of tuples takes 100; a 10,000-file workspace has close to a million)."""

    __slots__ = ("_ends", "_lines", "_parts")

    def __init__(self, literals: Iterable[tuple[int, Iterable[str]]] = ()) -> None:
        pairs = [(line, tuple(parts)) for line, parts in literals]
        self._lines = array("q", map(itemgetter(0), pairs))
        self._ends = array("q", accumulate(len(parts) for _line, parts in pairs))
        self._parts = tuple(chain.from_iterable(parts for _line, parts in pairs))

    @classmethod
    def from_columns(cls, lines: Iterable[int], counts: Iterable[int],
                     parts: Iterable[str]) -> Literals:
        """The literals `columns` gave (no Python step per literal: a restart reads close
        to a million); ValueError or TypeError when the columns do not fit together."""
        packed = cls()
        packed._lines, counted = array("q", lines), array("q", counts)
        packed._ends, packed._parts = array("q", accumulate(counted)), tuple(parts)
        if len(counted) != len(packed._lines) or (counted and min(counted) < 0) or \
                (packed._ends[-1] if packed._ends else 0) != len(packed._parts):
            raise ValueError("literal columns do not fit together")
        return packed

    def columns(self) -> tuple[list[int], list[int], tuple[str, ...]]:
        """(lines, how many parts each literal has, all the parts in order)."""
        ends = self._ends.tolist()
        return self._lines.tolist(), [end - start for start, end in
                                      zip([0, *ends], ends, strict=False)], self._parts

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self) -> Iterator[Literal]:
        parts, start = self._parts, 0
        for line, end in zip(self._lines, self._ends, strict=True):
            yield line, parts[start:end]
            start = end

    @overload
    def __getitem__(self, at: int) -> Literal: ...

    @overload
    def __getitem__(self, at: slice) -> list[Literal]: ...

    def __getitem__(self, at: int | slice) -> Literal | list[Literal]:
        if isinstance(at, slice):
            return list(self)[at]
        at = range(len(self._lines))[at]  # IndexError as a list gives it
        start = self._ends[at - 1] if at else 0
        return self._lines[at], self._parts[start:self._ends[at]]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Literals):
            return (self._lines, self._ends, self._parts) == \
                (other._lines, other._ends, other._parts)
        if isinstance(other, (list, tuple)):
            return list(self) == [(line, tuple(parts)) for line, parts in other]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Literals({list(self)!r})"
