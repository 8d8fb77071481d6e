"""Where the retrieval benchmark's line waste comes from: every line of every block attached
on the development sets is tagged with the part of the span that put it there (the note
heading a block, a `…` gap; in a hit's definition: a class's header, docstring, attributes,
its members' first lines, docstrings and bodies, a function's signature, docstring and body;
an enclosing class's header line; the lines around a hit no definition encloses; a named
file's content, grep lines, a shortlist's entries, a listing) and by how its hit was found
(named, described, the raise of a pasted message, a callee, a neighbour), and judged with
the benchmark's own judge
(`bench_retrieval_quality.judged_lines`, the labels' `ast` ranges), not with the code that
chose it. The parts of a definition are read with the standard library's `ast` too.

    python -m bench.line_waste_origins          # all eleven development sets

For each part: tokens attached, tokens wasted (in relevant blocks / in blocks showing nothing
needed), and in how many of its occurrences (a part of one hit in one block) a needed line
was there.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bench.bench_retrieval_quality import JudgedLine, Score, _figures, judge, judged_lines
from bench.retrieval_projects import (
    DEVELOPMENT_SETS,
    Needed,
    labels,
    mapped,
    needed,
    retrieve_as_a_turn,
)
from swetui.engine.items import ContextItem, ItemKind
from swetui.engine.retrieval_spans import LINE_CONTEXT, FoundHits
from swetui.engine.symbols.lookup import Hit
from swetui.engine.symbols.symbol_map import SymbolIndex


class Recorder:
    """Stands as retrieval's `keep`: keeps every hit found (as shipped) and remembers them,
    to tag the lines they bring."""

    def __init__(self) -> None:
        self.hits: list[Hit] = []

    def __call__(self, found: FoundHits) -> list[Hit]:
        self.hits = found.all()
        return self.hits


def origin(hit: Hit) -> str:
    if hit.how == "used":
        return "neighbour" if hit.reason.startswith("next to") else "callee"
    return hit.how


@dataclass
class Node:
    """A class or function as `ast` reads it."""

    kind: str
    first: int
    """Its first line, decorators included."""
    line: int
    """The `def`/`class` line."""
    head_end: int
    """The last line before its body."""
    doc: tuple[int, int] | None
    end: int
    children: list[Node] = field(default_factory=list)


def _nodes(source: str) -> list[Node]:
    """Every class and function of a file, outermost first."""
    out: list[Node] = []

    def visit(node: ast.AST, parent: Node | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                body = child.body[0]
                doc = None
                if isinstance(body, ast.Expr) and isinstance(body.value, ast.Constant) \
                        and isinstance(body.value.value, str):
                    doc = (body.lineno, body.end_lineno or body.lineno)
                made = Node("class" if isinstance(child, ast.ClassDef) else "function",
                            first, child.lineno, max(child.lineno, body.lineno - 1), doc,
                            child.end_lineno or child.lineno)
                out.append(made)
                if parent is not None:
                    parent.children.append(made)
                visit(child, made)
            else:
                visit(child, parent)
    try:
        visit(ast.parse(source), None)
    except SyntaxError:
        return []
    return out


_NODES: dict[Path, list[Node]] = {}


def nodes_of(path: Path) -> list[Node]:
    if path not in _NODES:
        _NODES[path] = _nodes(path.read_text(encoding="utf-8", errors="replace"))
    return _NODES[path]


def _in(span: tuple[int, int] | None, n: int) -> bool:
    return span is not None and span[0] <= n <= span[1]


def role_in(node: Node | None, n: int, shown: set[int]) -> str:
    """The part of a definition line `n` is in (`shown`: the lines the block shows)."""
    if node is None:
        return "constant"
    if node.kind == "function":
        if n <= node.head_end:
            return "function signature"
        return "function docstring" if _in(node.doc, n) else "function body"
    if n <= node.head_end:
        return "class header"
    if _in(node.doc, n):
        return "class docstring"
    for member in node.children:
        if member.first <= n <= member.end:
            if n <= member.head_end:
                alone = not any(member.head_end < m <= member.end for m in shown)
                return "member first line only" if alone else "member first line"
            return "member docstring" if _in(member.doc, n) else "member body"
    return "class attributes"


def _node_for(nodes: list[Node], start: int, end: int) -> Node | None:
    matches = [x for x in nodes if x.line == start or x.first == start]
    matches = [x for x in matches if x.end == end] or matches
    return matches[-1] if matches else None


def span_roles(path: Path, rel: str, lines: list[JudgedLine], hits: list[Hit]
               ) -> list[tuple[str, str, str]]:
    """(part, origin, which hit) of each line of a span block."""
    nodes = nodes_of(path)
    mine = [h for h in hits if h.path == rel]
    spans = []  # (first, end, hit, node)
    for hit in mine:
        if hit.definition is not None:
            node = _node_for(nodes, hit.definition.start, hit.definition.end)
            first = node.first if node is not None else hit.definition.start
            spans.append((first, hit.definition.end, hit, node))
    shown = {j.where[1] for j in lines if j.where is not None}
    out = []
    for i, judged in enumerate(lines):
        if judged.where is None:
            out.append(("note" if i == 0 else "gap", "-", "-"))
            continue
        n = judged.where[1]
        around = [s for s in spans if s[0] <= n <= s[1]]
        if around:
            first, end, hit, node = min(around, key=lambda s: s[1] - s[0])
            key = f"{hit.definition.qualname if hit.definition else ''}@{first}"
            out.append((role_in(node, n, shown), origin(hit), key))
            continue
        enclosing = [(s, x) for s in spans for x in nodes
                     if x.kind == "class" and x.first <= n <= x.head_end
                     and x.first <= s[0] and s[1] <= x.end]
        if enclosing:
            (_f, _e, hit, _node), _x = enclosing[0]
            out.append(("enclosing class header", origin(hit), f"class@{n}"))
            continue
        near = [h for h in mine if h.definition is None
                and abs(h.line - n) <= LINE_CONTEXT]
        if near:
            out.append(("lines around a hit", origin(near[0]), f"line@{near[0].line}"))
            continue
        out.append(("other", "?", "?"))
    return out


class Tally:
    """Per key: tokens, wasted in relevant blocks, wasted elsewhere, occurrences, occurrences
    with a needed line."""

    def __init__(self) -> None:
        self.rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])

    def add(self, key: str, group: list[JudgedLine], relevant_block: bool) -> None:
        row = self.rows[key]
        row[0] += sum(j.tokens for j in group)
        wasted = sum(j.tokens for j in group if j.wasted)
        row[1 if relevant_block else 2] += wasted
        row[3] += 1
        row[4] += any(j.useful for j in group)
        row[5] += sum(j.tokens for j in group if j.useful)

    def merge(self, other: Tally) -> None:
        for key, row in other.rows.items():
            mine = self.rows[key]
            for i, v in enumerate(row):
                mine[i] += v

    def print(self, title: str, total_tokens: int) -> None:
        print(f"   {title:<34} {'tokens':>8} {'useful':>7} {'waste in rel':>13} "
              f"{'waste elsewhere':>16} {'share of all':>12} {'needed there':>14}")
        for key, row in sorted(self.rows.items(), key=lambda kv: -(kv[1][1] + kv[1][2])):
            share = (row[1] + row[2]) / max(total_tokens, 1)
            print(f"   {key:<34} {row[0]:>8,} {row[5]:>7,} {row[1]:>13,} {row[2]:>16,} "
                  f"{100 * share:>11.1f}% {row[4]:>6}/{row[3]:<6}")


ELEMENT = ("context element", "-", "-")
"""The `<context …>` and `</context>` lines a block is sent between."""


def classify(item: ContextItem, root: Path, lines: list[JudgedLine], hits: list[Hit]
             ) -> list[tuple[str, str, str]]:
    """(part, origin, which hit) of each line of a block as it is sent."""
    return [ELEMENT, *_classify_body(item, root, lines[1:-1], hits), ELEMENT]


def _classify_body(item: ContextItem, root: Path, lines: list[JudgedLine], hits: list[Hit]
                   ) -> list[tuple[str, str, str]]:
    if item.kind is ItemKind.SPAN:
        return span_roles(root / (item.source.path or ""), item.source.path or "", lines, hits)
    if item.kind is ItemKind.GREP:
        return [("grep header" if j.where is None else "grep lines", "grep", "-")
                for j in lines]
    if item.kind is ItemKind.SHORTLIST:
        return [("shortlist note" if j.where is None else "shortlist entries", "shortlist",
                 "-") for j in lines]
    if item.kind is ItemKind.LISTING:
        return [("listing", "listing", "-") for _ in lines]
    return [("named file", "file", "-") for _ in lines]


@dataclass
class Tallies:
    parts: Tally = field(default_factory=Tally)
    origins: Tally = field(default_factory=Tally)
    both: Tally = field(default_factory=Tally)
    hits: Tally = field(default_factory=Tally)
    """Relevant blocks only, by hit: how it was found, and whether it shows a needed line."""
    tokens: int = 0
    useful: int = 0
    """Tokens of lines showing a needed line (what a cut must not lose)."""
    wasted_in_relevant: int = 0

    def merge(self, other: Tallies) -> None:
        self.parts.merge(other.parts)
        self.origins.merge(other.origins)
        self.both.merge(other.both)
        self.hits.merge(other.hits)
        self.tokens += other.tokens
        self.useful += other.useful
        self.wasted_in_relevant += other.wasted_in_relevant


def measure(items: list[ContextItem], root: Path, needs: list[Needed], hits: list[Hit],
            tallies: Tallies) -> None:
    for item in items:
        lines = judged_lines(item, needs)
        roles = classify(item, root, lines, hits)
        relevant = any(j.useful for j in lines)
        tallies.tokens += sum(j.tokens for j in lines)
        tallies.useful += sum(j.tokens for j in lines if j.useful)
        if relevant:
            tallies.wasted_in_relevant += sum(j.tokens for j in lines if j.wasted)
        groups: dict[tuple[str, str, str], list[JudgedLine]] = defaultdict(list)
        for judged, role in zip(lines, roles, strict=True):
            groups[role].append(judged)
        by_hit: dict[tuple[str, str], list[JudgedLine]] = defaultdict(list)
        for (part, how, which), group in groups.items():
            tallies.parts.add(part, group, relevant)
            tallies.origins.add(how, group, relevant)
            tallies.both.add(f"{how}: {part}", group, relevant)
            by_hit[(how, which)] += group
        for (how, _which), group in by_hit.items():
            if relevant:
                needed_hit = "needed" if any(j.useful for j in group) else "not needed"
                tallies.hits.add(f"{how}, {needed_hit}", group, relevant)


def fig(score: Score) -> str:
    f = _figures(score)
    return " / ".join(f"{100 * f[k]:5.1f}" for k in ("precision", "waste", "line waste",
                                                       "recall", "empty"))


def main(sets: Iterable[tuple[str, Path]] = DEVELOPMENT_SETS) -> None:
    recorder = Recorder()
    maps: dict[Path, SymbolIndex] = {}
    grand, grand_score = Tallies(), Score()
    figures = []
    for name, path in sets:
        data = labels(path)
        tallies, score = Tallies(), Score()
        for request in data["requests"]:
            root, index = mapped(data["projects"][request["project"]], maps)
            recorder.hits = []
            result = retrieve_as_a_turn(root, request["request"], index, keep=recorder)
            needs = needed(root, request["needs"])
            score.add(judge(result.items, needs, root, request["request"]))
            measure(result.items, root, needs, recorder.hits, tallies)
        figures.append((name, score, tallies))
        print(f"== {name} ({score.requests}): precision / waste / line waste / recall / "
              f"empty {fig(score)}", flush=True)
        grand.merge(tallies)
        grand_score.add(score)
    print("\n== per set: precision / block waste / line waste / recall / empty; tokens "
          "attached, of them needed lines, line waste inside relevant blocks")
    for name, score, tallies in [*figures, ("all", grand_score, grand)]:
        print(f"   {name:<12} {fig(score)}   {tallies.tokens:>7,} {tallies.useful:>7,} "
              f"{tallies.wasted_in_relevant:>6,} "
              f"({100 * tallies.wasted_in_relevant / max(tallies.tokens, 1):.1f}%)")
    print(f"\n== all sets: {grand.tokens:,} tokens attached, "
          f"{grand_score.line_wasted:,} line-wasted")
    grand.parts.print("part", grand.tokens)
    print()
    grand.origins.print("how the hit was found", grand.tokens)
    print()
    grand.both.print("how found: part", grand.tokens)
    print("\n   inside relevant blocks, by hit (a class's header line counts as its own hit)")
    grand.hits.print("how found, needed or not", grand.tokens)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
