"""What is known of each candidate definition for a described request, as numbers a learned
ranking (`learned_ranking`) weighs: how its words match the request (the BM25F score and
which fields say the request's stems), how close it is in meaning, what kind of definition
it is, how large, where it lives, and how much the rest of the code uses it (how often its
name is referenced, and its file's PageRank, both kept by the map). General signals only:
nothing here names a request's words or a project's identifiers.

Measured and left out: the PageRank of a definition's name over the call graph and the number
of definitions calling it added nothing out of sample (60 of 87 first picks right with or
without them, leaving one set out) and cost 46 s of CPU per map generation at 200,000
definitions."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from swetui.engine.symbols import ranking
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.symbol_map import SymbolIndex

Candidate = tuple[float, str, Definition]
"""(words score, file, definition), best by words first."""

FEATURES: tuple[str, ...] = (
    "words",          # BM25F score / the best candidate's
    "words_rank",     # log(1 + its place by words)
    "name_share",     # share of the request's stem weight (idf) said by its own name
    "outer_share",    # ... by its class's name
    "doc_share",      # ... by its docstring, comments and literals
    "body_share",     # ... only by the identifiers its body uses
    "coverage",       # ... said anywhere
    "rarest",         # 1 when it says the request's rarest stem
    "meaning",        # cosine with the request (0 without the model)
    "meaning_gap",    # cosine - the best candidate's cosine
    "is_class",
    "is_method",
    "is_function",
    "is_constant",
    "log_lines",      # log(1 + its lines)
    "depth",          # folders above its file
    "private",        # `_name`
    "dunder",         # `__name__`
    "log_referenced", # log(1 + how often its name is referenced in the workspace)
    "file_rank",      # PageRank of its file, × files (1 = average), log
    "raises",         # it raises or names an exception class
    "not_source",     # its file is a test, example or documentation
    "exact_name",     # its whole name is a bare word of the request
    "doc_size",       # log(1 + stems of its docs)
    "file_votes",     # share of the other candidates in its file
    "class_votes",    # share of the other candidates in its class (or members of it)
    "near",           # its file is in context, or in a folder of one
)

EXCEPTION_ENDINGS = ("Error", "Exception", "Exit", "Abort", "Warning")


@dataclass(frozen=True, slots=True)
class Request:
    """What the features need of the request: its stems with their weights (idf), its
    bare words (a definition named by one), and the files in context."""

    stems: Sequence[str]
    idf: dict[str, float]
    words: frozenset[str]
    near: frozenset[str]


def _shares(found: ranking.Fields, request: Request) -> tuple[float, float, float, float,
                                                              float, float]:
    total = sum(request.idf.get(stem, 0.0) for stem in request.stems) or 1.0
    name = outer = doc = body = anywhere = 0.0
    for stem in request.stems:
        weight = request.idf.get(stem, 0.0)
        if stem in found.name:
            name += weight
        elif stem in found.outer:
            outer += weight
        elif stem in found.doc:
            doc += weight
        elif stem in found.body:
            body += weight
        else:
            continue
        anywhere += weight
    rarest = max(request.stems, key=lambda s: request.idf.get(s, 0.0), default=None)
    says_rarest = float(rarest is not None and (rarest in found.name or rarest in found.outer
                                                or rarest in found.doc or rarest in found.body))
    return name / total, outer / total, doc / total, body / total, anywhere / total, says_rarest


def _owner(definition: Definition) -> str:
    """The class a method belongs to, or the class itself."""
    if definition.kind == "class":
        return definition.qualname
    return definition.qualname.rsplit(".", 1)[0] if "." in definition.qualname else ""


def rows(index: SymbolIndex, request: Request, candidates: Sequence[Candidate],
         cosines: Sequence[float] | None, path_weight: Callable[[str], float]
         ) -> list[list[float]]:
    """One row of `FEATURES` per candidate, in the order given (which changes nothing in
    them: a candidate's place by words is its rank by score, then file and line)."""
    if not candidates:
        return []
    files = max(len(index.by_file), 1)
    by_words = sorted(range(len(candidates)), key=lambda n: (
        -candidates[n][0], candidates[n][1], candidates[n][2].start, candidates[n][2].qualname))
    place = {n: position for position, n in enumerate(by_words)}
    best = candidates[by_words[0]][0] or 1.0
    best_cosine = max(cosines) if cosines else 0.0
    in_file: dict[str, int] = {}
    in_class: dict[tuple[str, str], int] = {}
    for _score, rel, definition in candidates:
        in_file[rel] = in_file.get(rel, 0) + 1
        owner = _owner(definition)
        if owner:
            in_class[(rel, owner)] = in_class.get((rel, owner), 0) + 1
    others = max(len(candidates) - 1, 1)
    near_dirs = {rel.rsplit("/", 1)[0] for rel in request.near if "/" in rel}
    out: list[list[float]] = []
    for number, (score, rel, definition) in enumerate(candidates):
        name, outer, doc, body, anywhere, rarest = _shares(ranking.fields(definition), request)
        cosine = cosines[number] if cosines else 0.0
        kind = definition.kind
        owner = _owner(definition)
        dunder = definition.name.startswith("__") and definition.name.endswith("__")
        out.append([
            score / best,
            math.log1p(place[number]),
            name, outer, doc, body, anywhere, rarest,
            cosine,
            cosine - best_cosine,
            float(kind == "class"), float(kind == "method"), float(kind == "function"),
            float(kind == "constant"),
            math.log1p(max(definition.end - definition.start + 1, 1)),
            float(rel.count("/")),
            float(definition.name.startswith("_") and not dunder),
            float(dunder),
            math.log1p(index.referenced.get(definition.name, 0)),
            math.log(max(index.file_rank.get(rel, 0.0) * files, 1e-3)),
            float(any(ref.endswith(EXCEPTION_ENDINGS) for ref in definition.refs)),
            float(path_weight(rel) < 1.0),
            float(definition.name in request.words and "." not in definition.qualname),
            math.log1p(len(definition.doc)),
            (in_file[rel] - 1) / others,
            (in_class.get((rel, owner), 1) - 1) / others if owner else 0.0,
            1.0 if rel in request.near else 0.5 if rel.rsplit("/", 1)[0] in near_dirs else 0.0,
        ])
    return out
