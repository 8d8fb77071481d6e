"""The real projects the retrieval benchmark runs on: sdists downloaded from PyPI with pip at
the pinned versions of `retrieval_labels.json`, unpacked into a cache outside the repository
($SWETUI_BENCH_CACHE, default ~/.cache/swetui-bench); nothing of them is committed."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swetui.agent.sandbox import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import RetrievalResult, retrieve
from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap

LABELS = Path(__file__).with_name("retrieval_labels.json")
HELD_OUT = Path(__file__).with_name("retrieval_labels_heldout.json")
HELD_OUT_2 = Path(__file__).with_name("retrieval_labels_heldout2.json")
HELD_OUT_3 = Path(__file__).with_name("retrieval_labels_heldout3.json")
HELD_OUT_4 = Path(__file__).with_name("retrieval_labels_heldout4.json")
HELD_OUT_5 = Path(__file__).with_name("retrieval_labels_heldout5.json")
HELD_OUT_6 = Path(__file__).with_name("retrieval_labels_heldout6.json")
HELD_OUT_7 = Path(__file__).with_name("retrieval_labels_heldout7.json")
HELD_OUT_8 = Path(__file__).with_name("retrieval_labels_heldout8.json")
HELD_OUT_9 = Path(__file__).with_name("retrieval_labels_heldout9.json")
HELD_OUT_10 = Path(__file__).with_name("retrieval_labels_heldout10.json")
HELD_OUT_11 = Path(__file__).with_name("retrieval_labels_heldout11.json")
HELD_OUT_12 = Path(__file__).with_name("retrieval_labels_heldout12.json")
HELD_OUT_13 = Path(__file__).with_name("retrieval_labels_heldout13.json")
HELD_OUT_14 = Path(__file__).with_name("retrieval_labels_heldout14.json")
TUNED_2 = Path(__file__).with_name("retrieval_labels_tuned2.json")
DEVELOPMENT_SETS: tuple[tuple[str, Path], ...] = (
    ("tuned", LABELS), ("tuned 2", TUNED_2), ("held out 1", HELD_OUT),
    ("held out 2", HELD_OUT_2), ("held out 3", HELD_OUT_3), ("held out 4", HELD_OUT_4),
    ("held out 5", HELD_OUT_5), ("held out 6", HELD_OUT_6), ("held out 7", HELD_OUT_7),
    ("held out 8", HELD_OUT_8), ("held out 9", HELD_OUT_9), ("held out 10", HELD_OUT_10),
    ("held out 11", HELD_OUT_11), ("held out 12", HELD_OUT_12),
    ("held out 13", HELD_OUT_13), ("held out 14", HELD_OUT_14))
"""The labelled sets that have been run, and so may be tuned and fitted on (each held-out
set was written blind and run once before it joined them; the learned ranking's shipped
weights were fitted before sets 9 to 14 joined). Set 15 is sealed: never run, never read."""


def cache_dir() -> Path:
    return Path(os.environ.get("SWETUI_BENCH_CACHE") or Path.home() / ".cache" / "swetui-bench")


def labels(path: Path = LABELS) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def mapped(project: dict[str, Any], maps: dict[Path, SymbolIndex]) -> tuple[Path, SymbolIndex]:
    """A labelled project's unpacked root and its symbol map, built once per root (`maps`)."""
    root = project_root(project["requirement"], project["root"])
    if root not in maps:
        symbols = SymbolMap(root)
        symbols.build()
        maps[root] = symbols.index()
    return root, maps[root]


def retrieve_as_a_turn(root: Path, text: str, index: SymbolIndex | None,
                       **options: Any) -> RetrievalResult:
    """What a turn's retrieval attaches for `text`: with the agent's rule for what may not be
    read (a secret file by its name or by another name of it), on a fresh context."""
    return retrieve(root, text, ContextEngine(), turn=1, symbols=index,
                    exclude=secret_files(root), **options)


class ProjectUnavailable(RuntimeError):
    """A labelled project whose sdist cannot be had or unpacked; says which and why."""


def project_root(requirement: str, root: str) -> Path:
    """The unpacked sdist of `requirement` (downloaded with pip when missing); raises
    ProjectUnavailable when it cannot be downloaded or unpacked, or holds no `root/`."""
    cache = cache_dir()
    unpacked = cache / root
    if unpacked.is_dir():
        return unpacked
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"{root}.tar.gz"
    if not archive.exists():
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                               "--no-binary", ":all:", "-q", "-d", str(cache), requirement],
                              capture_output=True, text=True)
        if done.returncode != 0 or not archive.exists():
            said = (done.stderr.strip().splitlines() or ["no archive named " + archive.name])
            raise ProjectUnavailable(f"{requirement}: pip download failed "
                                     f"(exit {done.returncode}): {said[-1][:200]}")
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(cache, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise ProjectUnavailable(f"{requirement}: {archive} cannot be unpacked ({exc})") from exc
    if not unpacked.is_dir():
        raise ProjectUnavailable(f"{requirement}: {archive} holds no {root}/")
    return unpacked


@dataclass
class Needed:
    """The lines of one file a good answer needs (all of it when no symbol is named)."""

    path: str
    ranges: list[tuple[int, int]] = field(default_factory=list)

    headers: list[tuple[int, int]] = field(default_factory=list)
    """The header lines (`class X(...):`) of the classes enclosing a needed method: not a
    needed definition (a block showing only them is not relevant), but not waste either."""

    def covers(self, line: int) -> bool:
        return not self.ranges or any(a <= line <= b for a, b in self.ranges)

    def useful(self, line: int) -> bool:
        """A line a good answer can use: inside a needed definition or an enclosing class's
        header (the line-waste measure of `bench_retrieval_quality` counts the others)."""
        return self.covers(line) or any(a <= line <= b for a, b in self.headers)


def python_ranges(source: str) -> dict[str, tuple[int, int]]:
    """Qualified name → (first line with decorators, last line), read with the standard
    library's `ast` (not with the tree-sitter map the benchmark measures)."""
    found: dict[str, tuple[int, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                end = child.end_lineno or child.lineno
                old = found.get(name)  # @overload stubs and the real one: keep all lines
                found[name] = (min(first, old[0]), max(end, old[1])) if old else (first, end)
                visit(child, f"{name}.")
    visit(ast.parse(source), "")
    return found


def class_headers(source: str) -> dict[str, tuple[int, int]]:
    """Qualified class name → its header lines: decorators and the `class` statement up to
    the line before its body (so not its docstring)."""
    found: dict[str, tuple[int, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                if isinstance(child, ast.ClassDef):
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    found[name] = (first, max(child.lineno, child.body[0].lineno - 1))
                visit(child, f"{name}.")
    visit(ast.parse(source), "")
    return found


def enclosing_headers(symbol: str, headers: dict[str, tuple[int, int]]) -> list[tuple[int, int]]:
    """The headers of the classes `symbol` is nested in (`A.B.m` → A's and A.B's)."""
    parts = symbol.split(".")
    return [headers[q] for q in (".".join(parts[:i]) for i in range(1, len(parts)))
            if q in headers]


def needed(root: Path, needs: list[dict[str, Any]]) -> list[Needed]:
    out = []
    for need in needs:
        source = (root / need["path"]).read_text(encoding="utf-8")
        ranges = python_ranges(source)
        missing = [s for s in need["symbols"] if s not in ranges]
        if missing:
            raise ValueError(f"label names {missing} not defined in {need['path']}")
        headers = class_headers(source)
        out.append(Needed(need["path"], [ranges[s] for s in need["symbols"]],
                          [h for s in need["symbols"] for h in enclosing_headers(s, headers)]))
    return out
