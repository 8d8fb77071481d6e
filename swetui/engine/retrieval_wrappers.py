"""A wrapper is not where the work is: a Python function whose whole code hands its arguments
to a function of the same name (`def asdict(inst): return _asdict(inst, retain=True)`,
`def validateLink(self, url): return normalize_url.validateLink(url)`) stands for the
function it calls, which retrieval shows (or lists) in its place."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from swetui.engine.retrieval_spans import mapped_lines
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.lookup import Hit, file_weight
from swetui.engine.symbols.symbol_map import SymbolIndex

MAX_WRAPPER_CHARS = 4_000
"""A definition longer than this is no wrapper and is not parsed (a pathological one, a
100,000-deep expression, would exhaust the parser's recursion or memory)."""


def called_name(definition: Definition, lines: list[str]) -> str | None:
    """The name a Python function's whole code returns a call of (`return _asdict(…)` →
    `_asdict`, `return normalize_url.validateLink(url)` → `normalize_url.validateLink`),
    past its docstring; None for any other code, and for a call on anything but a plain
    name (`self._store.get(key)` calls a method of some object, not a module's function)."""
    source = "\n".join(lines[definition.start - 1:definition.end])
    if len(source) > MAX_WRAPPER_CHARS:
        return None
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    function = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # its docstring
    if len(body) != 1 or not isinstance(body[0], ast.Return) \
            or not isinstance(body[0].value, ast.Call):
        return None
    called = body[0].value.func
    if isinstance(called, ast.Attribute) and isinstance(called.value, ast.Name):
        return f"{called.value.id}.{called.attr}"
    return called.id if isinstance(called, ast.Name) else None


def wrapped(index: SymbolIndex, rel: str, definition: Definition, lines: list[str]
            ) -> tuple[str, Definition] | None:
    """The one top-level function of the source that `definition` only hands its arguments
    to, when it bears the same name (leading underscores aside: `_asdict` is how a module
    imports `asdict` beside its own)."""
    if definition.kind not in ("function", "method") or not rel.endswith(".py"):
        return None
    qualified = called_name(definition, lines)
    if qualified is None:
        return None
    module, _, called = qualified.rpartition(".")
    if called.lstrip("_") != definition.name.lstrip("_"):
        return None
    targets = [(where, d) for name in {called, called.lstrip("_")}
               for where, d in index.by_name.get(name, [])
               if d is not definition and "." not in d.qualname and d.kind == "function"
               and file_weight(where) == 1.0 and where.endswith(".py")
               # `normalize_url.validateLink`: the function of a module of that name; a
               # call on `self` or a variable is a method's, never a module's function
               and (not module or module in where.removesuffix(".py").split("/"))]
    return targets[0] if len(targets) == 1 else None


def follow_wrappers(root: Path, index: SymbolIndex, hits: Iterable[Hit],
                    exclude: Callable[[str], bool] | None = None) -> list[Hit]:
    """`hits` with each wrapper (`wrapped`) a request named, described or was shortlisted
    for replaced by the function it calls (dropped when that one is a hit already)."""
    hits = list(hits)
    texts: dict[str, list[str] | None] = {}
    out: list[Hit] = []
    for hit in hits:
        definition = hit.definition
        if definition is None or hit.how not in ("named", "described", "candidate") \
                or exclude is not None and exclude(hit.path):
            out.append(hit)
            continue
        if hit.path not in texts:
            texts[hit.path] = mapped_lines(root, index, hit.path)
        lines = texts[hit.path]
        target = wrapped(index, hit.path, definition, lines) \
            if lines is not None and definition.end <= len(lines) else None
        if target is None:
            out.append(hit)
            continue
        where, inner = target
        if any(h.path == where and h.definition is inner for h in hits + out):
            continue
        out.append(replace(hit, path=where, definition=inner, line=inner.start,
                           reason=f"{hit.reason}, through {definition.qualname} "
                                  f"({hit.path}:{definition.start}), which only calls it"))
    return out
