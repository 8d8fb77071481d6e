"""Print swetui's dependency picture: modules, import cycles, imports inside functions, and
`Any` and `type: ignore` counts where they matter.

    .venv/bin/python scripts/dependency_picture.py [CHECKOUT]

CHECKOUT (default: this one) is a directory holding `swetui/`, so an older commit can be
measured the same way: `git worktree add /tmp/old <commit>` and pass `/tmp/old`. The import
graph comes from grimp (import-linter's own graph builder); cycles are counted over imports
that run (imports under `if TYPE_CHECKING:` left out) and over all imports.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grimp

HEADLESS = ("swetui/engine", "swetui/agent", "swetui/providers")
BOUNDARY = ("swetui/ui/bridge.py", "swetui/ui/commands.py")


def _graph(root: Path, *, runtime_only: bool) -> grimp.ImportGraph:
    """The import graph of `swetui` as found under `root` (run in a child so the checkout's
    own package is the one imported)."""
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "swetui" or m.startswith("swetui.")]:
            del sys.modules[name]
        return grimp.build_graph("swetui", exclude_type_checking_imports=runtime_only,
                                 cache_dir=None)
    finally:
        sys.path.remove(str(root))


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in modules:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = []
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work.append((start, iter(sorted(graph.find_modules_directly_imported_by(start)))))
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(
                        graph.find_modules_directly_imported_by(child)))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def imports_inside_functions(root: Path) -> list[str]:
    """`path:line` of every import statement inside a function body."""
    found: list[str] = []
    for path in sorted((root / "swetui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return sorted(set(found))


def count_lines(root: Path, places: tuple[str, ...], pattern: str) -> dict[str, int]:
    """Lines matching `pattern` in each file under `places` (like `grep -c`)."""
    counts: dict[str, int] = {}
    rx = re.compile(pattern)
    for place in places:
        target = root / place
        files = [target] if target.is_file() else sorted(target.rglob("*.py"))
        for path in files:
            if path.exists():
                hits = sum(1 for line in path.read_text(encoding="utf-8").splitlines()
                           if rx.search(line))
                counts[str(path.relative_to(root))] = hits
    return counts


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else Path(__file__).resolve().parents[1]).resolve()
    commit = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %s"],
                            capture_output=True, text=True).stdout.strip()
    print(f"checkout: {root} ({commit[:70]})")
    runtime = _graph(root, runtime_only=True)
    every = _graph(root, runtime_only=False)
    print(f"modules: {len(runtime.modules)}")
    for label, graph in (("cycles (imports that run)", runtime), ("cycles (all imports)", every)):
        found = cycles(graph)
        print(f"{label}: {len(found)}")
        for component in found:
            print(f"  {len(component)} modules: {', '.join(component)}")
    inside = imports_inside_functions(root)
    print(f"imports inside functions: {len(inside)}")
    for where in inside:
        print(f"  {where}")
    boundary = count_lines(root, BOUNDARY, r"\bAny\b")
    print(f"lines naming Any at the ui-agent boundary: {sum(boundary.values())} "
          + ", ".join(f"{k}={v}" for k, v in boundary.items()))
    ignores = count_lines(root, HEADLESS, r"type:\s*ignore")
    print(f"type: ignore in engine/agent/providers: {sum(ignores.values())}")
    anys = count_lines(root, HEADLESS, r"\bAny\b")
    print(f"lines naming Any in engine/agent/providers: {sum(anys.values())}")
    over = {k: v for k, v in count_lines(root, ("swetui",), r"").items() if v >= 400}
    print(f"files of 400 lines or more: {len(over)} "
          + ", ".join(f"{k}={v}" for k, v in sorted(over.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
