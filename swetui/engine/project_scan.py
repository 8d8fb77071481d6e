"""A structural scan of a workspace for `swetui init`: its files without build output, caches
or virtual environments, what its manifests say (name, description, scripts, dependencies,
tools), and one line about each key file from its docstring or header comment."""

from __future__ import annotations

import ast
import fnmatch
import json
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swetui.engine.sources import read_workspace_text
from swetui.files import BUILD_DIRS, TOOL_DIRS, SecretRule

SKIPPED_DIRS = TOOL_DIRS | BUILD_DIRS | {
    ".swetui", ".vscode", "target", "htmlcov", ".coverage", ".eggs", ".nox", ".hypothesis",
    ".benchmarks", ".next", ".cache", "coverage", "env", "site-packages", ".gradle", "out"}
SKIPPED_SUFFIXES = (".egg-info", ".dist-info")
SOURCE_SUFFIXES = frozenset({".py", ".ts", ".tsx", ".js", ".mjs", ".rs", ".go", ".java", ".c",
                             ".h", ".cpp", ".rb", ".sh", ".kt", ".swift", ".cs", ".php"})
Progress = Callable[[str], None]


def _gitignored_names(root: Path) -> list[str]:
    """The plain names and simple globs of the top `.gitignore` (no paths, no negations)."""
    text = read_text(root, ".gitignore") or ""
    names = []
    for line in text.splitlines():
        line = line.strip().rstrip("/")
        if line and not line.startswith(("#", "!")) and "/" not in line.lstrip("/"):
            names.append(line.lstrip("/"))
    return names


def _skipped(directory: Path, name: str, ignored: list[str]) -> bool:
    if name in SKIPPED_DIRS or name.startswith(".") or name.endswith(SKIPPED_SUFFIXES):
        return True
    if (directory / name / "pyvenv.cfg").exists():  # a virtual environment by any name
        return True
    return any(fnmatch.fnmatch(name, pattern) for pattern in ignored)


def walk(root: Path, limit: int = 20_000, progress: Progress | None = None) -> list[Path]:
    """The workspace's files, relative, sorted; without build output, caches, virtual
    environments, hidden folders and what the top `.gitignore` names."""
    ignored = _gitignored_names(root)
    files: list[Path] = []
    if progress is not None:
        progress("scanning the workspace")
    for directory, dirs, names in os.walk(root):
        here = Path(directory)
        dirs[:] = sorted(d for d in dirs if not _skipped(here, d, ignored))
        for name in sorted(names):
            if any(fnmatch.fnmatch(name, pattern) for pattern in ignored):
                continue
            files.append((here / name).relative_to(root))
            if len(files) >= limit:
                return files
        if progress is not None and len(files) % 500 < len(names):
            progress(f"scanning: {len(files):,} files")
    return files


def read_text(root: Path, name: str, limit: int = 200_000,
              secrets: SecretRule | None = None) -> str | None:
    """A workspace file's text, or None (missing, not regular, binary, a link outside, or
    by `secrets` another name of a secret file: a `requirements.txt -> .env` would list the
    keys as dependencies in SWETUI.md, which the model reads every turn)."""
    if secrets is not None and secrets(name):
        return None
    try:
        loaded = read_workspace_text(root, name, limit,
                                     secrets.opened if secrets is not None else None)
    except (OSError, ValueError):
        return None
    return loaded.text if loaded is not None else None


def _toml(root: Path, name: str, secrets: SecretRule | None) -> dict[str, Any]:
    try:
        return tomllib.loads(read_text(root, name, secrets=secrets) or "")
    except (tomllib.TOMLDecodeError, ValueError):
        return {}


def _json(root: Path, name: str, secrets: SecretRule | None) -> dict[str, Any]:
    try:
        data = json.loads(read_text(root, name, secrets=secrets) or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@dataclass
class Manifests:
    """What the project's manifests declare."""

    name: str | None = None
    description: str | None = None
    scripts: list[str] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    commands: list[tuple[str, str]] = field(default_factory=list)
    """(what, command): install, test, lint, build."""


def _names(values: object, limit: int = 25) -> str:
    if isinstance(values, dict):
        values = list(values)
    if not isinstance(values, list):
        return ""
    shown = [str(value) for value in values[:limit]]
    more = f", … {len(values) - limit} more" if len(values) > limit else ""
    return ", ".join(shown) + more


def _python(root: Path, found: Manifests, secrets: SecretRule | None) -> None:
    data = _toml(root, "pyproject.toml", secrets)
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    found.name = found.name or project.get("name")
    found.description = found.description or project.get("description")
    for kind in ("scripts", "gui-scripts"):
        for script, target in (project.get(kind) or {}).items():
            found.scripts.append(f"`{script}` → `{target}` (pyproject.toml)")
    if project.get("dependencies"):
        found.dependencies.append(f"Python: {_names(project['dependencies'])}")
    extras = project.get("optional-dependencies") or {}
    for extra, values in extras.items():
        found.dependencies.append(f"Python extra `{extra}`: {_names(values)}")
    if project or (root / "setup.py").exists():
        extra = next((name for name in ("dev", "test", "tests") if name in extras), None)
        found.commands.append(("install", "pip install -e ." if extra is None
                               else f"pip install -e '.[{extra}]'"))
    if "pytest" in tool or (root / "pytest.ini").exists() or (root / "tests").is_dir():
        found.commands.append(("test", "python -m pytest"))
    if "ruff" in tool:
        found.commands.append(("lint", "ruff check ."))
    if "mypy" in tool:
        found.commands.append(("type-check", "mypy " + (found.name or ".").replace("-", "_")))
    if "black" in tool:
        found.commands.append(("format", "black ."))
    listed = read_text(root, "requirements.txt", secrets=secrets) or ""
    required = [line.strip() for line in listed.splitlines()
                if line.strip() and not line.startswith(("#", "-"))]
    if required:
        found.dependencies.append(f"requirements.txt: {_names(required)}")


def _node(root: Path, found: Manifests, secrets: SecretRule | None) -> None:
    package = _json(root, "package.json", secrets)
    if not package:
        return
    found.name = found.name or package.get("name")
    found.description = found.description or package.get("description")
    binaries = package.get("bin")
    if isinstance(binaries, dict):
        found.scripts += [f"`{name}` → `{target}` (package.json bin)"
                          for name, target in binaries.items()]
    declared = package.get("scripts")
    scripts: dict[str, Any] = declared if isinstance(declared, dict) else {}
    found.scripts += [f"`npm run {name}`: `{command}`" for name, command in scripts.items()]
    found.commands.append(("install", "npm install"))
    for name in ("build", "test", "lint"):
        if name in scripts:
            found.commands.append((name, f"npm {'test' if name == 'test' else 'run ' + name}"))
    for key in ("dependencies", "devDependencies"):
        if package.get(key):
            found.dependencies.append(f"npm {key}: {_names(package[key])}")


def _others(root: Path, found: Manifests, secrets: SecretRule | None) -> None:
    cargo = _toml(root, "Cargo.toml", secrets)
    if cargo:
        package = cargo.get("package", {})
        found.name = found.name or package.get("name")
        found.description = found.description or package.get("description")
        found.commands += [("build", "cargo build"), ("test", "cargo test"),
                           ("lint", "cargo clippy")]
        if cargo.get("dependencies"):
            found.dependencies.append(f"Rust: {_names(cargo['dependencies'])}")
    gomod = read_text(root, "go.mod", secrets=secrets)
    if gomod:
        module = re.search(r"^module\s+(\S+)", gomod, re.MULTILINE)
        found.name = found.name or (module.group(1) if module else None)
        found.commands += [("build", "go build ./..."), ("test", "go test ./..."),
                           ("lint", "go vet ./...")]
        required = re.findall(r"^\s+([\w./-]+)\s+v[\w.+-]+", gomod, re.MULTILINE)
        if required:
            found.dependencies.append(f"Go: {_names(required)}")
    makefile = read_text(root, "Makefile", secrets=secrets)
    if makefile:
        targets = re.findall(r"^([A-Za-z][\w-]*):(?!=)", makefile, re.MULTILINE)
        found.scripts += [f"`make {target}`" for target in dict.fromkeys(targets)][:15]


def manifests(root: Path, secrets: SecretRule | None = None) -> Manifests:
    found = Manifests()
    _python(root, found, secrets)
    _node(root, found, secrets)
    _others(root, found, secrets)
    return found


# -- key files -----------------------------------------------------------------------------

def first_sentence(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match else text
    if len(sentence) <= limit:
        return sentence
    return sentence[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"  # never mid-word


def _python_line(text: str) -> str | None:
    try:
        doc = ast.get_docstring(ast.parse(text))
    except (SyntaxError, ValueError):
        return None
    return first_sentence(doc) if doc else None


COMMENT = re.compile(r"^\s*(?://[/!]?|#!?|/\*\*?|\*|--|;)\s?(.*?)\s*(?:\*/)?$")


def _comment_line(text: str) -> str | None:
    """The first sentence of a file's leading comment block (after a shebang)."""
    lines: list[str] = []
    for raw in text.splitlines()[:30]:
        if raw.startswith("#!") or (not lines and not raw.strip()):
            continue
        match = COMMENT.match(raw)
        if match is None:
            break
        body = match.group(1).strip()
        if body.startswith(("-*-", "SPDX", "Copyright", "eslint", "@ts-", "type:")):
            continue
        if body:
            lines.append(body)
        elif lines:
            break
    return first_sentence(" ".join(lines)) if lines else None


def describe(root: Path, path: Path, secrets: SecretRule | None = None) -> str | None:
    """One line about a file from its docstring, header comment or first heading."""
    text = read_text(root, path.as_posix(), 60_000, secrets)
    if not text:
        return None
    if path.suffix == ".py":
        return _python_line(text)
    if path.suffix in (".md", ".rst"):
        heading = re.search(r"^#+\s+(.+)$", text, re.MULTILINE)
        return first_sentence(heading.group(1)) if heading else None
    if path.suffix in SOURCE_SUFFIXES:
        return _comment_line(text)
    return None
