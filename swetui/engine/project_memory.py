"""`SWETUI.md`: a project memory written from what the workspace shows (overview, structure,
key files, patterns, dependencies), within the memory layer's 2–3k tokens."""

from __future__ import annotations

import json
import os
import tomllib
from collections import Counter
from pathlib import Path

from swetui.engine.sources import read_workspace_text
from swetui.files import BUILD_DIRS, TOOL_DIRS
from swetui.secrets import redact

IGNORED_DIRS = TOOL_DIRS | BUILD_DIRS | {".swetui", ".vscode", "target"}
KEY_FILES = ("README.md", "README.rst", "README", "pyproject.toml", "setup.py", "setup.cfg",
             "requirements.txt", "package.json", "Cargo.toml", "go.mod", "Makefile",
             "Dockerfile", "AGENTS.md", "CLAUDE.md", ".github/workflows")
LANGUAGES = {".py": "Python", ".ts": "TypeScript", ".tsx": "TypeScript", ".js": "JavaScript",
             ".rs": "Rust", ".go": "Go", ".java": "Java", ".c": "C", ".h": "C", ".cpp": "C++",
             ".rb": "Ruby", ".md": "Markdown", ".sh": "Shell", ".tcss": "Textual CSS",
             ".toml": "TOML", ".json": "JSON", ".yml": "YAML", ".yaml": "YAML"}
MAX_CHARS = 10_000
"""About 2.5k tokens: the memory layer's budget is 3k shared with the session notes."""


def _walk(root: Path, limit: int = 20_000) -> list[Path]:
    files: list[Path] = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.startswith("."))
        for name in sorted(names):
            files.append(Path(directory, name).relative_to(root))
            if len(files) >= limit:
                return files
    return files


def _text(root: Path, name: str, limit: int = 1_000_000) -> str | None:
    """A workspace file's text, or None when it is missing, not a regular file (a FIFO
    never blocks), binary, or a link leading outside the workspace."""
    try:
        loaded = read_workspace_text(root, name, limit)
    except OSError:
        return None
    return loaded.text if loaded is not None else None


def _overview(root: Path) -> str:
    for name in ("README.md", "README.rst", "README"):
        text = _text(root, name, 4000)
        if text is not None:
            paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()
                          and not p.strip().startswith(("#", "[!", "![", "<", "```"))]
            if paragraphs:
                return paragraphs[0][:600]
    return "(no README found: describe the project here)"


def _structure(root: Path, files: list[Path]) -> list[str]:
    top: Counter[str] = Counter()
    for path in files:
        top[path.parts[0] + ("/" if len(path.parts) > 1 else "")] += 1
    lines = []
    for name, count in sorted(top.items())[:40]:
        lines.append(f"- `{name}`" + (f" ({count} files)" if name.endswith("/") else ""))
    return lines


def _dependencies(root: Path) -> list[str]:
    deps: list[str] = []
    try:
        data = tomllib.loads(_text(root, "pyproject.toml") or "")
        python = data.get("project", {}).get("dependencies", [])
        if python:
            deps += [f"Python: {', '.join(map(str, python[:20]))}"]
    except (ValueError, AttributeError, TypeError):
        pass
    try:
        package = json.loads(_text(root, "package.json") or "{}")
        names = list(package.get("dependencies", {}))[:20]
        if names:
            deps.append(f"npm: {', '.join(map(str, names))}")
    except (ValueError, AttributeError, TypeError):
        pass
    lines = (_text(root, "requirements.txt") or "").splitlines()
    names = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    if names:
        deps.append(f"requirements.txt: {', '.join(names[:20])}")
    return deps


def build_project_memory(root: Path) -> str:
    """The text of SWETUI.md for `root`."""
    files = _walk(root)
    languages = Counter(LANGUAGES[p.suffix] for p in files if p.suffix in LANGUAGES)
    tests = sorted({p.parts[0] for p in files if "test" in p.name.lower()})[:5]
    parts = [
        f"# {root.name}: project memory",
        "Written by `swetui init`; edit freely: the agent reads this file every turn.",
        "## Overview", _overview(root),
        "## Structure", *_structure(root, files),
        "## Key files",
        *[f"- `{name}`" for name in KEY_FILES if (root / name).exists()],
        "## Languages",
        ", ".join(f"{name} ({count} files)" for name, count in languages.most_common(6))
        or "(none detected)",
        "## Patterns",
        f"- Tests live in: {', '.join(f'`{t}`' for t in tests) if tests else '(none found)'}",
        "- Follow the existing style of the file you edit; keep changes small and tested.",
        "## Dependencies", *(_dependencies(root) or ["(none declared)"]),
    ]
    text = "\n\n".join(parts).replace("\n\n- ", "\n- ")[:MAX_CHARS] + "\n"
    return redact(text)  # the overview quotes the README, which may hold a key
