"""Completion for the prompt: `/` commands and `@path` workspace files."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from swetui.files import BUILD_DIRS, TOOL_DIRS

SKIP_DIRS = TOOL_DIRS | BUILD_DIRS | {".swetui", ".vscode"}
MAX_FILES = 50_000
"""Files indexed for `@path` completion at most (a huge tree stays responsive)."""
MAX_SHOWN = 12

_AT_TOKEN = re.compile(r"(?:^|\s)@(\S*)$")


@dataclass(frozen=True)
class Completion:
    """One suggestion: replace text from `start` to the cursor with `value`."""

    start: int
    value: str
    label: str
    help: str = ""


def list_workspace_files(root: Path, limit: int = MAX_FILES) -> list[str]:
    """Workspace-relative file paths, skipping VCS, caches and virtualenvs (blocking)."""
    found: list[str] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".cache"))
        relative = os.path.relpath(directory, root)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in sorted(files):
            found.append(prefix + name)
            if len(found) >= limit:
                return found
    return found


def rank_paths(paths: Sequence[str], query: str, limit: int = MAX_SHOWN) -> list[str]:
    """Paths matching `query`: prefix first, then name contains, then path contains."""
    if not query:
        return list(paths[:limit])
    lowered = query.lower()
    scored: list[tuple[int, int, str]] = []
    for path in paths:
        low = path.lower()
        if low.startswith(lowered):
            rank = 0
        elif os.path.basename(low).startswith(lowered):
            rank = 1
        elif lowered in low:
            rank = 2
        else:
            continue
        scored.append((rank, len(path), path))
    scored.sort()
    return [path for _, _, path in scored[:limit]]


@dataclass
class Completer:
    """Suggests command names, command arguments and workspace paths for the text before
    the cursor."""

    commands: Sequence[tuple[str, str, str]] = ()
    """(name, argument hint, help) of each slash command."""
    arguments: dict[str, Callable[[], Iterable[str]]] = field(default_factory=dict)
    """Per command: the values its argument can take (modes, session ids, ...)."""
    files: list[str] = field(default_factory=list)

    def complete(self, before_cursor: str, *, first_line: bool = True) -> list[Completion]:
        """Suggestions for the text between the line's start and the cursor."""
        if first_line and before_cursor.startswith("/"):
            return self._command(before_cursor)
        match = _AT_TOKEN.search(before_cursor)
        if match:
            query = match.group(1)
            start = len(before_cursor) - len(query)
            return [Completion(start, path + " ", "@" + path) for path in
                    rank_paths(self.files, query)]
        return []

    def _command(self, text: str) -> list[Completion]:
        name, space, argument = text[1:].partition(" ")
        if not space:
            return [Completion(1, f"{command} ", f"/{command} {hint}".rstrip(), help_text)
                    for command, hint, help_text in self.commands if command.startswith(name)]
        values = self.arguments.get(name)
        if values is None or " " in argument:
            return []
        start = len(text) - len(argument)
        return [Completion(start, value, value) for value in values()
                if value.startswith(argument) and value != argument][:MAX_SHOWN]
