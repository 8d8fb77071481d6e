"""`SWETUI.md`: a project memory written from a structural scan of the workspace, 2,000–3,000
tokens on a project of some size: what the project is (whole sentences from its README or
its package metadata), a tree to depth 3, key files with a line each, entry points and
scripts, how to install, test and lint, dependencies, languages and where the tests live."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from swetui.engine.project_scan import (
    SOURCE_SUFFIXES,
    Manifests,
    Progress,
    describe,
    first_sentence,
    manifests,
    read_text,
    walk,
)
from swetui.engine.tokens import TokenCounter
from swetui.files import SecretRule
from swetui.secrets import redact

MAX_TOKENS = 3_000
"""The memory layer's share for SWETUI.md (DESIGN §6: 2–3k tokens)."""
LANGUAGES = {".py": "Python", ".ts": "TypeScript", ".tsx": "TypeScript", ".js": "JavaScript",
             ".rs": "Rust", ".go": "Go", ".java": "Java", ".c": "C", ".h": "C", ".cpp": "C++",
             ".rb": "Ruby", ".md": "Markdown", ".sh": "Shell", ".tcss": "Textual CSS",
             ".toml": "TOML", ".json": "JSON", ".yml": "YAML", ".yaml": "YAML"}
TOP_FILES = ("README.md", "README.rst", "README", "pyproject.toml", "setup.py", "setup.cfg",
             "package.json", "Cargo.toml", "go.mod", "Makefile", "Dockerfile", "AGENTS.md",
             "CLAUDE.md", "CONTRIBUTING.md")
ROLES = {"pyproject.toml": "package metadata, dependencies and tool settings",
         "setup.py": "packaging script", "setup.cfg": "packaging and tool settings",
         "package.json": "package metadata, scripts and dependencies",
         "Cargo.toml": "crate metadata and dependencies", "go.mod": "module and dependencies",
         "Makefile": "build targets", "Dockerfile": "container image",
         "README.md": "the project's introduction", "CONTRIBUTING.md": "how to contribute",
         "AGENTS.md": "instructions for coding agents", "CLAUDE.md": "instructions for agents"}
ENTRY_FILES = frozenset({"__main__.py", "main.py", "cli.py", "main.rs", "main.go", "index.ts",
                         "index.js", "app.py"})
COMMAND_SECTION = re.compile(r"^#+\s*.*\b(install|test|develop|contribut|getting started|"
                             r"usage|build|lint)", re.IGNORECASE)
SHELL_LINE = re.compile(r"^\s*\$?\s*((?:pip|python3?|uv|poetry|npm|pnpm|yarn|cargo|go|make|"
                        r"pytest|ruff|mypy|tox|nox|just)\b[^#\n]*)")


class Cancelled(Exception):
    """The scan was cancelled (its progress callback raised it)."""


def _readme(root: Path, secrets: SecretRule | None) -> tuple[str | None, str]:
    """The README's title and its opening prose as whole sentences (at most ~900 chars)."""
    for name in ("README.md", "README.rst", "README"):
        text = read_text(root, name, 100_000, secrets)
        if text is None:
            continue
        title = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
        prose: list[str] = []
        fenced = False
        for block in re.split(r"\n\s*\n", text):
            stripped = block.strip()
            if stripped.startswith("```"):
                fenced = stripped.count("```") % 2 == 1
                continue
            if fenced or not stripped or stripped.startswith(
                    ("#", "[!", "![", "<", "|", "=", "-", "*", ">", "    ")) or \
                    re.match(r"^\[.*\]\(.*\)$", stripped):
                continue
            prose.append(" ".join(stripped.split()))
            if sum(map(len, prose)) > 900:
                break
        joined = " ".join(prose)
        sentences = re.findall(r".+?[.!?](?=\s|$)", joined)
        kept = ""
        for sentence in sentences:
            if len(kept) + len(sentence) > 900 and kept:
                break
            kept = f"{kept} {sentence.strip()}".strip()
        return (title.group(1).strip() if title else None), kept
    return None, ""


def _tree(files: list[Path], depth: int = 3, per_dir: int = 12) -> list[str]:
    """Folders to `depth` with their file counts, and the top-level files."""
    counts: Counter[tuple[str, ...]] = Counter()
    for path in files:
        for level in range(1, min(len(path.parts) - 1, depth) + 1):
            counts[path.parts[:level]] += 1
    lines: list[str] = []

    def children(prefix: tuple[str, ...]) -> None:
        level = len(prefix)
        folders = sorted(key for key in counts if len(key) == level + 1 and key[:level] == prefix)
        for key in folders[:per_dir]:
            lines.append(f"{'  ' * level}- `{key[-1]}/` ({_files(counts[key])})")
            if level + 1 < depth:
                children(key)
        if len(folders) > per_dir:
            lines.append(f"{'  ' * level}- … {len(folders) - per_dir} more folders")

    children(())
    top = [path.name for path in files if len(path.parts) == 1 and not path.name.startswith(".")]
    lines += [f"- `{name}`" for name in top[:20]]
    if len(top) > 20:
        lines.append(f"- … {len(top) - 20} more files")
    return lines


def _files(count: int) -> str:
    return f"{count} file{'' if count == 1 else 's'}"


def _key_candidates(files: list[Path], package: str | None) -> list[Path]:
    """Files worth a line: the top-level ones, entry points, then source files folder by
    folder, a few from each in turn (the main package first, tests last), so a cut list
    still covers every part of the project."""
    top = [path for path in files if len(path.parts) == 1 and path.name in TOP_FILES]
    entry = sorted((path for path in files if path.name in ENTRY_FILES),
                   key=lambda path: len(path.parts))
    folders: dict[Path, list[Path]] = {}
    for path in files:
        if path.suffix in SOURCE_SUFFIXES and 1 < len(path.parts) <= 4 and path not in entry:
            folders.setdefault(path.parent, []).append(path)

    def rank(folder: Path) -> tuple[bool, bool, int, str]:
        posix = folder.as_posix()
        return ("test" in posix.lower(), folder.parts[0] != package, len(folder.parts), posix)

    ordered = sorted(folders, key=rank)
    picked: list[Path] = []
    for start in range(0, max((len(group) for group in folders.values()), default=0), 6):
        for folder in ordered:
            group = sorted(folders[folder], key=lambda path: (path.stem != "__init__",
                                                               path.name))
            picked += group[start:start + 6]
    return list(dict.fromkeys(top + entry + picked))


def _key_files(root: Path, files: list[Path], package: str | None, progress: Progress,
               secrets: SecretRule | None, limit: int = 160) -> list[str]:
    lines: list[str] = []
    candidates = _key_candidates(files, package)[:limit * 2]
    for index, path in enumerate(candidates):
        if index % 20 == 0:
            progress(f"reading key files: {index} of {len(candidates)}")
        line = ROLES.get(path.name) if len(path.parts) == 1 else None
        line = line or describe(root, path, secrets)
        if line:
            lines.append(f"- `{path.as_posix()}`: {line}")
        if len(lines) >= limit:
            break
    return lines


def _commands(root: Path, found: Manifests, secrets: SecretRule | None) -> list[str]:
    lines = [f"- {what}: `{command}`" for what, command in dict.fromkeys(found.commands)]
    readme = read_text(root, "README.md", 100_000, secrets) or ""
    seen = {command for _, command in found.commands}
    in_section, fenced = False, False
    for line in readme.splitlines():
        if line.startswith("#"):
            in_section = bool(COMMAND_SECTION.match(line))
        elif line.strip().startswith("```"):
            fenced = not fenced
        elif in_section and fenced and (match := SHELL_LINE.match(line)):
            command = match.group(1).strip()
            if command not in seen and len(seen) < 14:
                seen.add(command)
                lines.append(f"- from the README: `{command}`")
    return lines


def _entry_points(files: list[Path], found: Manifests) -> list[str]:
    lines = [f"- {script}" for script in found.scripts[:25]]
    for path in files:
        if path.name == "__main__.py" and len(path.parts) <= 3:
            module = ".".join(path.parts[:-1])
            lines.append(f"- `python -m {module}` (`{path.as_posix()}`)")
    return lines


def _patterns(files: list[Path]) -> list[str]:
    tests = Counter(path.parts[0] for path in files
                    if "test" in path.name.lower() and len(path.parts) > 1)
    lines = []
    if tests:
        where = ", ".join(f"`{name}/` ({_files(count)})" for name, count in tests.most_common(3))
        lines.append(f"- Tests live in {where}.")
    if any(path.name.startswith("test_") and path.suffix == ".py" for path in files):
        lines.append("- Python tests are `test_*.py` files (pytest).")
    if any(path.name == "conftest.py" for path in files):
        lines.append("- Shared pytest fixtures are in `conftest.py` files.")
    lines.append("- Follow the style of the file you edit; keep changes small and tested.")
    return lines


def build_project_memory(root: Path, progress: Progress | None = None,
                         counter: Callable[[str], int] | None = None,
                         secrets: SecretRule | None = None) -> str:
    """The text of SWETUI.md for `root`, at most MAX_TOKENS tokens. `progress` hears each
    step (and may raise `Cancelled` to stop it). Files `secrets` says are secrets (by any
    name) are not read."""
    report: Progress = progress or (lambda _: None)
    count = counter or TokenCounter().count
    files = walk(root, progress=report)
    report("reading the manifests and the README")
    found = manifests(root, secrets)
    title, overview = _readme(root, secrets)
    name = found.name or title or root.name
    about = first_sentence(found.description) if found.description else ""
    if about and about.rstrip(".") in overview:
        about = ""
    package = next((folder for folder in (name.replace("-", "_"), "src", "lib")
                    if (root / folder).is_dir()), None)
    languages = Counter(LANGUAGES[p.suffix] for p in files if p.suffix in LANGUAGES)
    head = [f"# {name}: project memory",
            "Written by `swetui init` from a scan of the workspace; edit freely: the agent "
            "reads this file every turn.",
            "## Overview", " ".join(part for part in (about, overview) if part)
            or "(no README or package description found: describe the project here)"]
    sections: list[tuple[str, list[str]]] = [
        ("## How to work on it", _commands(root, found, secrets)
         or ["- (no install or test commands found)"]),
        ("## Entry points and scripts", _entry_points(files, found) or ["- (none declared)"]),
        ("## Structure", _tree(files)),
        ("## Key files", _key_files(root, files, package, report, secrets)),
        ("## Dependencies", [f"- {line}" for line in found.dependencies[:30]]
         or ["- (none declared)"]),
        ("## Languages", [", ".join(f"{lang} ({_files(n)})" for lang, n in
                                    languages.most_common(6)) or "(none detected)"]),
        ("## Patterns", _patterns(files)),
    ]
    report("fitting it to 3,000 tokens")
    text = _render(head, sections)
    # Cut the longest lists from their ends (key files, then the tree, …) until it fits:
    # the longest prefix that fits, found by bisection.
    for cut in ("## Key files", "## Structure", "## Dependencies",
                "## Entry points and scripts"):
        if count(text) <= MAX_TOKENS:
            break
        lines = dict(sections)[cut]
        whole = list(lines)
        low, high = 0, len(whole)
        while low < high:
            middle = (low + high + 1) // 2
            lines[:] = whole[:middle]
            if count(_render(head, sections)) <= MAX_TOKENS:
                low = middle
            else:
                high = middle - 1
        lines[:] = whole[:low]
        text = _render(head, sections)
    return redact(text)  # the overview quotes the README, which may hold a key


def _render(head: list[str], sections: list[tuple[str, list[str]]]) -> str:
    parts = list(head)
    for title, lines in sections:
        if lines:
            parts.append(title + "\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"
