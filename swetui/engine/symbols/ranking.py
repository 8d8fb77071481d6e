"""How well a definition matches a described behaviour: BM25F (Robertson and Zaragoza's
field-weighted BM25) over four fields of each definition — its own name, its class's name,
its docstring, comments and string literals, and the identifiers its body uses — with the
request's stems as the query. The map keeps each field as a set of stems (no counts), so a
term occurs at most once per field; a field's length is its number of distinct stems."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.words import stems_of_identifier

K1 = 1.2
"""How fast a term's weight saturates as more fields say it (BM25's usual value)."""
FIELD_WEIGHT = {"name": 2.0, "outer": 1.5, "doc": 2.0, "body": 0.5}
"""What a term is worth in each field: a definition named after the word, or documented
with it, is about it; the identifiers it uses only mention it. Chosen by a grid search on
the benchmark's tuned set and held-out sets 1-2 only (the surface is flat around these)."""
FIELD_B = {"name": 0.0, "outer": 0.0, "doc": 0.5, "body": 0.5}
"""Length normalisation per field: a name is short by nature; a long docstring or body
collects words by its length alone."""


@dataclass(frozen=True, slots=True)
class Fields:
    """A definition's stems, by field."""

    name: frozenset[str]
    outer: frozenset[str]
    doc: frozenset[str]
    body: frozenset[str]


def fields(definition: Definition) -> Fields:
    """Split a definition's stems into its fields (the name's stems, which the map also
    keeps in `doc`, count for the name alone)."""
    name = stems_of_identifier(definition.name)
    outer = stems_of_identifier(definition.qualname.rsplit(".", 1)[0]) \
        if "." in definition.qualname else frozenset()
    return Fields(name, outer, frozenset(definition.doc - name),
                  frozenset(definition.body - name))


@dataclass(frozen=True, slots=True)
class Collection:
    """What BM25 needs to know of all the definitions: how many, how many say each stem,
    and each field's average length."""

    count: int
    frequency: dict[str, int]
    average: dict[str, float]

    def idf(self, stem: str) -> float:
        """BM25's inverse document frequency (never negative)."""
        df = self.frequency.get(stem, 0)
        return math.log(1.0 + (self.count - df + 0.5) / (df + 0.5))


def collection(all_fields: Iterable[Fields], frequency: dict[str, int]) -> Collection:
    """Statistics of the definitions whose fields are given (`frequency`: the map's count
    of definitions saying each stem)."""
    totals = dict.fromkeys(FIELD_WEIGHT, 0)
    count = 0
    for found in all_fields:
        count += 1
        totals["name"] += len(found.name)
        totals["outer"] += len(found.outer)
        totals["doc"] += len(found.doc)
        totals["body"] += len(found.body)
    average = {field: max(total / max(count, 1), 1.0) for field, total in totals.items()}
    return Collection(count, frequency, average)


def collection_of(definitions: Iterable[Definition], frequency: dict[str, int]) -> Collection:
    """`collection` of definitions without splitting each into its fields: a field's length
    is read off the definition (the map keeps the name's stems in `doc`, so the docs' own
    stems are the rest; `body` is counted whole), so ranking a few definitions does not
    cost a pass that splits them all."""
    totals = dict.fromkeys(FIELD_WEIGHT, 0)
    count = 0
    for definition in definitions:
        count += 1
        name = len(stems_of_identifier(definition.name))
        totals["name"] += name
        if "." in definition.qualname:
            totals["outer"] += len(stems_of_identifier(definition.qualname.rsplit(".", 1)[0]))
        totals["doc"] += max(len(definition.doc) - name, 0)
        totals["body"] += len(definition.body)
    average = {field: max(total / max(count, 1), 1.0) for field, total in totals.items()}
    return Collection(count, frequency, average)


def score(found: Fields, stems: Iterable[str], stats: Collection) -> tuple[float, int]:
    """BM25F of one definition for the request's stems, and how many of them it says."""
    lengths = {"name": len(found.name), "outer": len(found.outer), "doc": len(found.doc),
               "body": len(found.body)}
    norm = {field: 1.0 - FIELD_B[field] + FIELD_B[field] * lengths[field]
            / stats.average[field] for field in FIELD_WEIGHT}
    total, matched = 0.0, 0
    for stem in stems:
        weight = 0.0
        if stem in found.name:
            weight += FIELD_WEIGHT["name"] / norm["name"]
        if stem in found.outer:
            weight += FIELD_WEIGHT["outer"] / norm["outer"]
        if stem in found.doc:
            weight += FIELD_WEIGHT["doc"] / norm["doc"]
        if stem in found.body:
            weight += FIELD_WEIGHT["body"] / norm["body"]
        if weight:
            matched += 1
            total += stats.idf(stem) * weight * (K1 + 1.0) / (K1 + weight)
    return total, matched
