"""The code stays lint-clean (ruff) and type-clean (mypy), as configured in pyproject.toml."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "swetui", "tests", "bench",
                             "scripts"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_is_clean():
    result = subprocess.run([sys.executable, "-m", "mypy", "swetui"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# The headless packages are held to `mypy --strict` (pyproject.toml [tool.mypy]).
STRICT_PACKAGES = ("swetui.engine", "swetui.agent", "swetui.providers")


def strict_flags() -> set[str]:
    """The options `mypy --strict` turns on, as mypy itself lists them in its --help."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--help"], capture_output=True,
                            text=True, env={**os.environ, "COLUMNS": "2000"})
    line = next(line for line in result.stdout.splitlines() if "--strict " in line)
    flags = re.findall(r"--([a-z-]+)", line.split("enables the following flags:")[1])
    assert len(flags) >= 10, line
    return {flag.replace("-", "_") for flag in flags}


def test_mypy_is_strict_for_the_headless_packages():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    wanted = strict_flags()
    for package in STRICT_PACKAGES:
        options = dict(config)
        for override in config.get("overrides", []):
            modules = override["module"]
            if f"{package}.*" in ([modules] if isinstance(modules, str) else modules):
                options.update(override)
        if options.get("strict"):
            continue
        missing = {flag for flag in wanted if flag.startswith("no_")
                   and options.get(flag.removeprefix("no_")) is not False}
        missing |= {flag for flag in wanted if not flag.startswith("no_")
                    and options.get(flag) is not True}
        assert not missing, f"{package} is not checked with {sorted(missing)}"


# Modules whose docstring says why they import inside functions.
LAZY_BY_DESIGN = {"swetui/cli.py"}


def imports_inside_functions_without_a_reason(package: Path) -> list[str]:
    """`path:line` of each import inside a function with no comment on its line or the line
    above it (outside the modules of LAZY_BY_DESIGN)."""
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent).as_posix()
        if where in LAZY_BY_DESIGN:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for func in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Import | ast.ImportFrom) and not any(
                        "#" in lines[number - 1] for number in (node.lineno, node.lineno - 1)):
                    found.append(f"{where}:{node.lineno}")
    return sorted(set(found))


def test_imports_inside_functions_say_why(tmp_path):
    assert imports_inside_functions_without_a_reason(ROOT / "swetui") == []
    planted = tmp_path / "swetui" / "engine" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("def f() -> None:\n    import json\n\n\n"
                       "def g() -> None:\n    # why: ...\n    import json\n", encoding="utf-8")
    assert imports_inside_functions_without_a_reason(tmp_path / "swetui") == [
        "swetui/engine/planted.py:2"]
