"""The read-only tools: read_file, list_dir, glob and grep.

They are blocking (the toolbox runs them in a thread), confined to the workspace, capped,
and say plainly when they cut, skip or refuse something.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from swetui.agent.tools.base import (
    GlobArgs,
    GrepArgs,
    ListDirArgs,
    ReadFileArgs,
    ToolError,
    ToolResult,
)
from swetui.agent.tools.sensitive import glob_to_regex, is_secret_file
from swetui.agent.tools.workspace import (
    HASH_LIMIT,
    IGNORED_DIRS,
    ReadLedger,
    Workspace,
)
from swetui.config import Settings
from swetui.engine.files import BINARY_SNIFF, looks_binary

MAX_LINE_CHARS = 2_000
MAX_LIST_ENTRIES = 500
MAX_GLOB_RESULTS = 500
MAX_GREP_LINES = 200
MAX_GREP_LINE_CHARS = 300


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def _secret_refusal(rel: str) -> ToolError:
    return ToolError(f"{rel} may hold secrets (keys, tokens, passwords), so it is not read "
                     "into the conversation. Ask the user for the specific value you need.",
                     summary=f"refused: {rel} may hold secrets", path=rel)


def read_file(ws: Workspace, ledger: ReadLedger, settings: Settings,
              args: ReadFileArgs) -> ToolResult:
    """Numbered lines of a text file, from `offset`, at most `limit` lines and
    `max_file_bytes` bytes."""
    real, rel = ws.resolve(args.path)
    if real.is_dir():
        raise ToolError(f"{rel} is a directory; use list_dir to see what it holds.",
                        summary=f"{rel} is a directory", path=rel)
    if not real.exists():
        raise ToolError(f"no such file: {rel}. Use glob or list_dir to find the right path.",
                        summary=f"no such file: {rel}", path=rel)
    if is_secret_file(rel):
        raise _secret_refusal(rel)
    offset = args.offset or 1
    limit = min(args.limit or settings.max_read_lines, settings.max_read_lines)
    budget = settings.max_file_bytes
    size = real.stat().st_size
    digest = hashlib.sha256()
    lines: list[str] = []
    total = 0
    cut_by_bytes = lossy = long_lines = False
    with real.open("rb") as handle:
        head = handle.read(BINARY_SNIFF)
        if looks_binary(head):
            raise ToolError(f"{rel} is a binary file ({_size(size)}); it is not shown as text.",
                            summary=f"refused: {rel} is binary ({_size(size)})", path=rel)
        handle.seek(0)
        hashing = size <= HASH_LIMIT
        for raw in handle:
            if hashing:
                digest.update(raw)
            total += 1
            if total < offset or len(lines) >= limit or cut_by_bytes:
                if not hashing and (len(lines) >= limit or cut_by_bytes):
                    break  # too big to hash: no need to count every line
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text, lossy = raw.decode("utf-8", errors="replace"), True
            text = text.rstrip("\r\n")
            if total == 1:
                text = text.removeprefix("\ufeff")
            if len(text) > MAX_LINE_CHARS:
                text = f"{text[:MAX_LINE_CHARS]}… [line cut: {len(text) - MAX_LINE_CHARS:,} " \
                       "more characters]"
                long_lines = True
            budget -= len(raw)
            if budget < 0 and lines:
                cut_by_bytes = True
                continue
            lines.append(f"{total:>6}\t{text}")
    shown = len(lines)
    last = offset + shown - 1
    counted = hashing  # the total is only exact when the whole file was scanned
    notes: list[str] = []
    if offset > 1 and offset > total and counted:
        raise ToolError(f"{rel} has {total:,} lines; offset {offset:,} is past the end.",
                        summary=f"offset past the end of {rel}", path=rel)
    more = (last < total) if counted else (shown >= limit or cut_by_bytes)
    cut = ""
    if more:
        why = f"{settings.max_file_bytes:,} bytes" if cut_by_bytes else f"{limit:,} lines"
        of_total = f" of {total:,}" if counted else f" (the file is {_size(size)})"
        notes.append(f"[cut at {why}: showed lines {offset:,}-{last:,}{of_total}. Read on with "
                     f"read_file(path={rel!r}, offset={last + 1})]")
        cut = f" (cut at {why})"
    if lossy:
        notes.append("[the file is not valid UTF-8: undecodable bytes are shown as \ufffd]")
    if long_lines:
        notes.append(f"[lines longer than {MAX_LINE_CHARS:,} characters were cut]")
    body = "\n".join(lines) if lines else "(empty file)"
    content = "\n".join([body, *notes])
    data: dict[str, object] = {"lines": shown, "offset": offset, "total_lines": total}
    if hashing:
        stamp = ledger.record(real, digest.hexdigest())
        if stamp is not None:
            data.update(mtime_ns=stamp.mtime_ns, sha256=stamp.sha256)
    word = "line" if shown == 1 else "lines"
    return ToolResult(content=content, summary=f"read {shown:,} {word} of {rel}{cut}",
                      path=rel, data=data)


def list_dir(ws: Workspace, args: ListDirArgs) -> ToolResult:
    """Sorted entries of a directory, directories marked with '/', `.git` skipped."""
    real, rel = ws.resolve(args.path)
    if not real.exists():
        raise ToolError(f"no such directory: {rel}", summary=f"no such directory: {rel}",
                        path=rel)
    if not real.is_dir():
        raise ToolError(f"{rel} is a file, not a directory; use read_file to read it.",
                        summary=f"{rel} is a file", path=rel)
    entries: list[str] = []
    with os.scandir(real) as scan:
        for entry in scan:
            if entry.name == ".git":
                continue
            if entry.is_dir(follow_symlinks=False):
                entries.append(entry.name + "/")
            elif entry.is_symlink():
                entries.append(entry.name + "@")
            else:
                entries.append(entry.name)
    entries.sort(key=lambda name: (name.lower(), name))
    shown = entries[:MAX_LIST_ENTRIES]
    lines = shown or ["(empty directory)"]
    if len(entries) > len(shown):
        lines.append(f"[… {len(entries) - len(shown):,} more entries not shown; use glob to "
                     "narrow down]")
    where = "the workspace root" if rel == "." else f"{rel}/"
    return ToolResult(content="\n".join(lines), path=None if rel == "." else rel,
                      summary=f"{len(entries):,} entries in {where}",
                      data={"entries": len(entries)})


def _walk(ws: Workspace, start: Path, pattern: str | None = None):
    """Files under `start` as (real path, relative path), ignored directories pruned
    (unless the glob explicitly names one)."""
    named = set(pattern.split("/")) if pattern else set()
    for dirpath, dirnames, filenames in os.walk(start):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS or d in named)
        for name in sorted(filenames):
            real = Path(dirpath) / name
            yield real, real.relative_to(ws.root).as_posix()


def _check_glob(pattern: str) -> None:
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise ToolError(f"glob {pattern!r} must be relative to the workspace and stay inside it.",
                        summary="refused: glob outside the workspace")


def glob(ws: Workspace, args: GlobArgs) -> ToolResult:
    """Workspace files matching a glob, sorted, capped."""
    _check_glob(args.pattern)
    regex = glob_to_regex(args.pattern)
    matches = [rel for _, rel in _walk(ws, ws.root, args.pattern) if regex.match(rel)]
    shown = matches[:MAX_GLOB_RESULTS]
    lines = shown or [f"no files match {args.pattern!r}"]
    if len(matches) > len(shown):
        lines.append(f"[… {len(matches) - len(shown):,} more files not shown; narrow the "
                     "pattern]")
    noun = "file" if len(matches) == 1 else "files"
    return ToolResult(content="\n".join(lines), data={"matches": len(matches)},
                      summary=f"{len(matches):,} {noun} match {args.pattern}")


def grep(ws: Workspace, settings: Settings, args: GrepArgs) -> ToolResult:
    """Lines matching a Python regular expression, as path:line: text."""
    try:
        regex = re.compile(args.pattern)
    except re.error as exc:
        raise ToolError(f"invalid regular expression {args.pattern!r}: {exc}. It is a Python "
                        "regex: escape special characters such as ( [ . * with a backslash.",
                        summary="invalid regular expression") from None
    real, rel = ws.resolve(args.path)
    if not real.exists():
        raise ToolError(f"no such file or directory: {rel}", summary=f"no such path: {rel}")
    if args.glob:
        _check_glob(args.glob)
    file_regex = glob_to_regex(args.glob) if args.glob else None
    files = [(real, rel)] if real.is_file() else _walk(ws, real, args.glob)
    out: list[str] = []
    hits = hit_files = hidden_hits = 0
    skipped: dict[str, int] = {"binary": 0, "large": 0, "secret": 0, "outside": 0}
    for path, name in files:
        if file_regex is not None and not file_regex.match(name):
            continue
        if is_secret_file(name):
            skipped["secret"] += 1
            continue
        if path.is_symlink():  # the walk lists links to files: read only those that stay in
            target = Path(os.path.realpath(path))
            if target != ws.root and ws.root not in target.parents:
                skipped["outside"] += 1
                continue
            if is_secret_file(ws.relative(target)):
                skipped["secret"] += 1
                continue
        try:
            if path.stat().st_size > settings.max_file_bytes:
                skipped["large"] += 1
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if looks_binary(data):
            skipped["binary"] += 1
            continue
        found = False
        for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
            if not regex.search(line):
                continue
            hits += 1
            found = True
            if len(out) >= MAX_GREP_LINES:
                hidden_hits += 1
                continue
            text = line.rstrip("\r")
            if len(text) > MAX_GREP_LINE_CHARS:
                text = text[:MAX_GREP_LINE_CHARS] + "…"
            out.append(f"{name}:{number}: {text}")
        hit_files += found
    where = "the workspace" if rel == "." else rel
    lines = out or [f"no matches for {args.pattern!r} in {where}"]
    if hidden_hits:
        lines.append(f"[… {hidden_hits:,} more matching lines not shown (first "
                     f"{MAX_GREP_LINES} of {hits:,}); narrow the pattern, path or glob]")
    reasons = {"binary": "binary", "large": f"larger than {_size(settings.max_file_bytes)}",
               "secret": "may hold secrets",
               "outside": "symlinks leading outside the workspace"}
    for kind, count in skipped.items():
        if count:
            lines.append(f"[skipped {count:,} files: {reasons[kind]}]")
    summary = f"{hits:,} {'hit' if hits == 1 else 'hits'} in {hit_files:,} " \
              f"{'file' if hit_files == 1 else 'files'}"
    if hidden_hits:
        summary += f" (showing {MAX_GREP_LINES})"
    return ToolResult(content="\n".join(lines), summary=summary,
                      data={"hits": hits, "files": hit_files, "skipped": skipped})
