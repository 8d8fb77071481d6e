"""The symbol map's Python definitions agree with the standard library's parser: for any
module of nested classes, functions, async functions, decorators and constants, the map
finds exactly the definitions `ast` finds, with the same qualified names and lines."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.symbols.extract import extract

NAMES = st.sampled_from(["alpha", "Beta", "_gamma", "delta_two", "Epsilon", "send", "close"])
Node = tuple[str, str, list]  # kind, name, children


def nodes(depth: int) -> st.SearchStrategy[list[Node]]:
    leaf = st.tuples(st.sampled_from(["def", "async", "class", "deco"]), NAMES, st.just([]))
    if depth == 0:
        return st.lists(leaf, max_size=3)
    inner = st.tuples(st.sampled_from(["def", "async", "class", "deco"]), NAMES,
                      nodes(depth - 1))
    return st.lists(st.one_of(leaf, inner), max_size=3)


def render(tree: list[Node], indent: str = "") -> list[str]:
    lines: list[str] = []
    for kind, name, children in tree:
        if kind == "deco":
            lines.append(f"{indent}@decorator")
            kind = "def"
        head = {"def": "def", "async": "async def", "class": "class"}[kind]
        lines.append(f"{indent}{head} {name}{'' if kind == 'class' else '(x)'}:")
        lines.append(f'{indent}    """About {name}: "quoted" text."""')
        lines += render(children, indent + "    ")
        lines.append(f"{indent}    value = {len(lines)}")
    return lines


def expected(source: str) -> set[tuple[str, int, int]]:
    found: set[tuple[str, int, int]] = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                found.add((name, child.lineno, child.end_lineno or child.lineno))
                visit(child, f"{name}.")
            elif isinstance(child, ast.Assign) and not prefix:
                for target in child.targets:
                    if isinstance(target, ast.Name):
                        found.add((target.id, child.lineno, child.end_lineno or child.lineno))
    visit(ast.parse(source), "")
    return found


@given(nodes(2), st.lists(st.sampled_from(["LIMIT", "name_map", "Default"]), max_size=2))
def test_python_definitions_match_the_standard_parser(tree: list[Node],
                                                      constants: list[str]) -> None:
    lines = [f"{name} = {n}" for n, name in enumerate(constants)] + render(tree)
    source = "".join(f"{line}\n" for line in lines)
    symbols = extract("mod.py", source.encode(), "python")
    found = {(d.qualname, d.start, d.end) for d in symbols.definitions}
    assert found == expected(source)
    assert symbols.lines == len(lines)
