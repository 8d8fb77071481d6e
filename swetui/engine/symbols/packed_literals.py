"""A file's string literals as the symbol map keeps them: one compressed `bytes` per file.

The literals are read by one look-up alone (`quoted_messages.raising`: the code behind an
error message), which goes through all of them; the rest of the time they only take room.
A 10,000-file workspace has about a million literals, 33 MB as arrays and text; compressed
(zlib at its fastest level) 12 MB. The cache stores the same bytes (`cache.encode`), so a
restart keeps a row's bytes as they are, after checking that they unpack."""

from __future__ import annotations

import struct
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, chain
from typing import overload

Literal = tuple[int, tuple[str, ...]]
"""(line, fixed parts) of one string literal."""
_HEAD = struct.Struct("<II")
"""How many literals, how many parts in all."""
_LEVEL = 1
"""zlib's fastest level: a cold build compresses every file's literals once."""
_Columns = tuple[array, array, array, str]  # type: ignore[type-arg]


def _numbers(values: Iterable[int]) -> array:  # type: ignore[type-arg]
    numbers = array("I", values)  # OverflowError for a negative or too large number
    if numbers.itemsize != 4:  # pragma: no cover - every platform swetui runs on
        raise OverflowError("no 4-byte unsigned array here")
    return numbers


class Literals(Sequence[Literal]):
    """A file's string literals, `(line, parts)` in order, packed: their lines, how many
    parts each has, each part's length and all the parts' text (UTF-8) in one compressed
    `bytes`. The parts are strings again when read (`__iter__`, one unpacking a call)."""

    __slots__ = ("_count", "_packed")

    def __init__(self, literals: Iterable[tuple[int, Iterable[str]]] = ()) -> None:
        lines: list[int] = []
        counts: list[int] = []
        parts: list[str] = []
        for line, pieces in literals:
            before = len(parts)
            parts.extend(pieces)
            lines.append(line)
            counts.append(len(parts) - before)
        self._pack(lines, counts, map(len, parts), "".join(parts))

    def _pack(self, lines: Iterable[int], counts: Iterable[int], lengths: Iterable[int],
              text: str) -> None:
        """Raises OverflowError (a negative or too large number), TypeError or ValueError
        when the columns do not fit together."""
        if not isinstance(text, str):
            raise TypeError("the literals' text is no string")
        line_numbers, counted, sizes = _numbers(lines), _numbers(counts), _numbers(lengths)
        if len(counted) != len(line_numbers) or sum(counted) != len(sizes) or \
                sum(sizes) != len(text):
            raise ValueError("literal columns do not fit together")
        self._count = len(line_numbers)
        self._packed = zlib.compress(b"".join((
            _HEAD.pack(len(line_numbers), len(sizes)), line_numbers.tobytes(),
            counted.tobytes(), sizes.tobytes(), text.encode("utf-8", "surrogatepass"))),
            _LEVEL) if line_numbers else b""

    @classmethod
    def from_columns(cls, lines: Iterable[int], counts: Iterable[int], lengths: Iterable[int],
                     text: str) -> Literals:
        """The literals `columns` gave, their parts joined in `text`; ValueError, TypeError
        or OverflowError when the columns do not fit together."""
        packed = cls.__new__(cls)
        packed._pack(lines, counts, lengths, text)
        return packed

    @classmethod
    def from_packed(cls, data: bytes, limit: int, last_line: int) -> Literals:
        """The literals whose `packed` bytes are `data` (kept as they are), unpacking to at
        most `limit` bytes; ValueError when they do not unpack to columns that fit, or a
        line is not within 1 to `last_line`."""
        if not isinstance(data, bytes):
            raise ValueError("packed literals are no bytes")
        packed = cls.__new__(cls)
        packed._count, packed._packed = 0, data
        lines = packed._unpack(limit)[0]
        if lines and not 1 <= min(lines) <= max(lines) <= last_line:
            raise ValueError("line numbers out of range")
        packed._count = len(lines)
        return packed

    @property
    def packed(self) -> bytes:
        """The compressed columns (empty when there is no literal)."""
        return self._packed

    def _unpack(self, limit: int | None = None) -> _Columns:
        """(lines, where each literal's parts end, where each part ends, the text)."""
        if not self._packed:
            return array("I"), array("I"), array("I"), ""
        try:
            if limit is None:
                raw = zlib.decompress(self._packed)
            else:
                inflater = zlib.decompressobj()
                raw = inflater.decompress(self._packed, limit)
                if inflater.unconsumed_tail or not inflater.eof or inflater.unused_data:
                    raise ValueError("packed literals longer than their file allows")
        except zlib.error as exc:
            raise ValueError(f"packed literals do not unpack ({exc})") from None
        if len(raw) < _HEAD.size:
            raise ValueError("packed literals too short")
        count, parts = _HEAD.unpack_from(raw)
        columns_end = _HEAD.size + 8 * count + 4 * parts
        if columns_end > len(raw):
            raise ValueError("packed literals too short")
        numbers = array("I")
        numbers.frombytes(raw[_HEAD.size:columns_end])
        lines, counts, lengths = numbers[:count], numbers[count:2 * count], numbers[2 * count:]
        text = raw[columns_end:].decode("utf-8", "surrogatepass")  # or UnicodeDecodeError
        ends, stops = array("I", accumulate(counts)), array("I", accumulate(lengths))
        if (ends[-1] if ends else 0) != parts or (stops[-1] if stops else 0) != len(text):
            raise ValueError("literal columns do not fit together")
        return lines, ends, stops, text

    def parts(self) -> list[str]:
        """Every literal's parts, in order."""
        _lines, _ends, stops, text = self._unpack()
        return list(map(text.__getitem__, map(slice, chain((0,), stops), stops)))

    def columns(self) -> tuple[list[int], list[int], list[str]]:
        """(lines, how many parts each literal has, all the parts in order)."""
        lines, ends, stops, text = self._unpack()
        parts = list(map(text.__getitem__, map(slice, chain((0,), stops), stops)))
        return lines.tolist(), [end - start for start, end in
                                zip(chain((0,), ends), ends, strict=False)], parts

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Literal]:
        lines, ends, stops, text = self._unpack()
        parts, start = list(map(text.__getitem__, map(slice, chain((0,), stops), stops))), 0
        for line, end in zip(lines, ends, strict=True):
            yield line, tuple(parts[start:end])
            start = end

    @overload
    def __getitem__(self, at: int) -> Literal: ...

    @overload
    def __getitem__(self, at: slice) -> list[Literal]: ...

    def __getitem__(self, at: int | slice) -> Literal | list[Literal]:
        if isinstance(at, slice):
            return list(self)[at]
        return list(self)[range(self._count)[at]]  # IndexError as a list gives it

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Literals):
            return self._unpack() == other._unpack()
        if isinstance(other, (list, tuple)):
            return list(self) == [(line, tuple(parts)) for line, parts in other]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Literals({list(self)!r})"
