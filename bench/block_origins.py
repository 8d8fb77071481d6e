"""Where the retrieval benchmark's wasted blocks come from: each hit retrieval attaches is
tagged with its origin (a definition named in the request, a described one, the literal
raising a pasted message, a raise site of its exception class, a callee `callees` brought,
the neighbour `neighbourhood` brought; and the named files, shortlist, grep and listing
blocks), and judged with the benchmark's judge (`bench_retrieval_quality.judge` and the
labels' `ast` ranges), not with the code that chose it. Then each origin is dropped in
turn and the whole benchmark is judged again: the recall (and precision) it is worth.

    python -m bench.block_origins            # all ten development sets
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.bench_retrieval_quality import Score, _figures, judge, shown
from bench.retrieval_projects import DEVELOPMENT_SETS as SETS
from bench.retrieval_projects import Needed, labels, mapped, needed, retrieve_as_a_turn
from swetui.engine.items import ContextItem, ItemKind
from swetui.engine.retrieval_spans import LINE_CONTEXT, FoundHits
from swetui.engine.symbols.lookup import Hit
from swetui.engine.symbols.neighbours import PASTED_ERROR
from swetui.engine.symbols.symbol_map import SymbolIndex

SPAN_ORIGINS = ("named", "described", "message", "raises", "callee", "callee elsewhere",
                "neighbour", "neighbour elsewhere")
"""`… elsewhere`: in a file none of the hits before it is in (a block of its own)."""
ORIGINS = (*SPAN_ORIGINS, "file", "shortlist", "grep", "listing")
_ITEM_ORIGIN = {ItemKind.FILE: "file", ItemKind.SHORTLIST: "shortlist", ItemKind.GREP: "grep",
                ItemKind.LISTING: "listing"}
"""Blocks that are no span of the map's hits (a shortlist names the candidates of a described
request the learned ranking is unsure about)."""

class Origins:
    """Stands as retrieval's `keep`: reads the hits retrieval found (`found_hits`, as it
    runs them), tags each with its origin, and keeps all but the origins in `dropped`
    (their blocks only are dropped, after the others are found)."""

    def __init__(self) -> None:
        self.tagged: list[tuple[str, Hit]] = []
        self.dropped: set[str] = set()

    def __call__(self, found: FoundHits) -> list[Hit]:
        tagged = [(h.how, h) for h in found.direct]
        for origin, hits in (("callee", found.used), ("neighbour", found.around)):
            for hit in hits:
                apart = all(hit.path != h.path for _o, h in tagged)
                tagged.append((f"{origin} elsewhere" if apart else origin, hit))
        self.tagged = tagged
        return [h for origin, h in tagged if origin not in self.dropped]


def _relevant(lines: list[tuple[str, int]], needs: list[Needed]) -> bool:
    return any(need.path == path and need.covers(line) for path, line in lines
               for need in needs)


def hit_lines(hit: Hit, lines: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The lines of a block a hit brought: those inside its definition (or around its line)."""
    if hit.definition is not None:
        first, last = hit.definition.start, hit.definition.end
    else:
        context = LINE_CONTEXT
        first, last = hit.line - context, hit.line + context
    return [(p, n) for p, n in lines if p == hit.path and first <= n <= last]


def request_kind(text: str, items: list[ContextItem], tags: list[tuple[str, Hit]]) -> str:
    origins = {origin for origin, _ in tags}
    if origins & {"message", "raises"} or PASTED_ERROR.search(text):
        return "pasted"
    if any(i.kind is ItemKind.FILE for i in items) or "/" in text and ".py" in text:
        return "path"
    if "named" in origins:
        return "named"
    return "described"


class Tally:
    def __init__(self) -> None:
        self.hits: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        """(origin, kind) → [hits shown, hits showing a needed line]."""
        self.blocks: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        """(origin of the block's first hit, kind) → [blocks, relevant blocks]."""
        self.alone: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        """origin → [blocks made of that origin's hits only, relevant ones]."""


def measure(index_for: dict[str, tuple[Path, SymbolIndex]], data: dict[str, Any], tally: Tally,
            drops: dict[str, Score]) -> Score:
    total = Score()
    origins = Origins()
    for request in data["requests"]:
        root, index = index_for[request["project"]]
        needs = needed(root, request["needs"])
        text = request["request"]
        origins.dropped, origins.tagged = set(), []
        result = retrieve_as_a_turn(root, text, index, keep=origins)
        tags = list(origins.tagged)
        kind = request_kind(text, result.items, tags)
        total.add(judge(result.items, needs, root, text))
        for item in result.items:
            lines = shown(item, root)
            if item.kind is not ItemKind.SPAN:
                origin = _ITEM_ORIGIN[item.kind]
                good = _relevant(lines, needs)
                for table in (tally.hits[(origin, kind)], tally.blocks[(origin, kind)],
                              tally.alone[origin]):
                    table[0] += 1
                    table[1] += good
                continue
            mine = [(o, h) for o, h in tags if h.path == item.source.path]
            seen = [(o, hit_lines(h, lines)) for o, h in mine]
            seen = [(o, ls) for o, ls in seen if ls]
            for origin, ls in seen:
                tally.hits[(origin, kind)][0] += 1
                tally.hits[(origin, kind)][1] += _relevant(ls, needs)
            first = seen[0][0] if seen else "?"
            good = _relevant(lines, needs)
            tally.blocks[(first, kind)][0] += 1
            tally.blocks[(first, kind)][1] += good
            if len({o for o, _ in seen}) == 1:
                tally.alone[first][0] += 1
                tally.alone[first][1] += good
        for origin in ORIGINS:
            origins.dropped = {origin}
            items = retrieve_as_a_turn(root, text, index, keep=origins).items
            if origin in _ITEM_ORIGIN.values():
                kinds = {k for k, v in _ITEM_ORIGIN.items() if v == origin}
                items = [i for i in items if i.kind not in kinds]
            drops[origin].add(judge(items, needs, root, text))
    return total


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"


def _fig(score: Score) -> str:
    f = _figures(score)
    return " / ".join(f"{100 * f[k]:5.1f}" for k in ("precision", "waste", "line waste",
                                                       "recall")) + f" / {score.empty} empty"


def main() -> None:
    maps: dict[Path, SymbolIndex] = {}
    grand, grand_tally = Score(), Tally()
    grand_drops: dict[str, Score] = defaultdict(Score)
    for name, path in SETS:
        data = labels(path)
        index_for = {}
        for project_name, project in data["projects"].items():
            index_for[project_name] = mapped(project, maps)
        tally = Tally()
        drops: dict[str, Score] = defaultdict(Score)
        score = measure(index_for, data, tally, drops)
        print(f"== {name}: {score.requests} requests; precision / waste / line waste / recall")
        print(f"   as shipped           {_fig(score)}  blocks {score.blocks} relevant "
              f"{score.relevant} needed files {score.files_found}/{score.files}")
        for origin in ORIGINS:
            hits = sum(v[0] for (o, _k), v in tally.hits.items() if o == origin)
            good = sum(v[1] for (o, _k), v in tally.hits.items() if o == origin)
            d = drops[origin]
            print(f"   {origin:<19} hits relevant {_pct(good, hits):<14} alone-blocks "
                  f"{_pct(tally.alone[origin][1], tally.alone[origin][0]):<14} "
                  f"without it: {_fig(d)}  (blocks {d.blocks - score.blocks:+d}, relevant "
                  f"{d.relevant - score.relevant:+d}, "
                  f"files {d.files_found - score.files_found:+d})")
        sys.stdout.flush()
        grand.add(score)
        for key, value in tally.hits.items():
            grand_tally.hits[key][0] += value[0]
            grand_tally.hits[key][1] += value[1]
        for key, value in tally.blocks.items():
            grand_tally.blocks[key][0] += value[0]
            grand_tally.blocks[key][1] += value[1]
        for origin, value in tally.alone.items():
            grand_tally.alone[origin][0] += value[0]
            grand_tally.alone[origin][1] += value[1]
        for origin, d in drops.items():
            grand_drops[origin].add(d)
    print(f"== all ten: as shipped {_fig(grand)} blocks {grand.blocks} relevant {grand.relevant}")
    for origin in ORIGINS:
        d = grand_drops[origin]
        print(f"   without {origin:<19} {_fig(d)}  (blocks {d.blocks - grand.blocks:+d}, "
              f"relevant {d.relevant - grand.relevant:+d}, files "
              f"{d.files_found - grand.files_found:+d})")
    print("== hits by origin and request kind (relevant / shown)")
    kinds = ("named", "described", "pasted", "path")
    print(f"   {'origin':<19} " + " ".join(f"{k:>14}" for k in kinds))
    for origin in ORIGINS:
        print(f"   {origin:<19} " + " ".join(
            f"{_pct(*reversed(grand_tally.hits[(origin, k)])):>14}" for k in kinds))
    print("== blocks by the origin of their first hit and request kind (relevant / blocks)")
    for origin in (*ORIGINS, "?"):
        print(f"   {origin:<19} " + " ".join(
            f"{_pct(*reversed(grand_tally.blocks[(origin, k)])):>14}" for k in kinds))


if __name__ == "__main__":
    main()
