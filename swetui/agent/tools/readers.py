"""The read-only tools: read_file, list_dir, glob and grep.

They are blocking (the toolbox runs them in a thread), confined to the workspace, capped,
and say plainly when they cut, skip or refuse something.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from swetui.agent.sandbox import secret_files
from swetui.agent.tools.base import (
    GlobArgs,
    GrepArgs,
    ListDirArgs,
    ReadFileArgs,
    ToolError,
    ToolResult,
)
from swetui.agent.tools.patterns import (
    MATCH_SECONDS,
    BoundedPattern,
    PatternError,
    PatternTooSlow,
)
from swetui.agent.tools.workspace import (
    HASH_LIMIT,
    IGNORED_DIRS,
    ReadLedger,
    WorkspaceFiles,
)
from swetui.config import Settings
from swetui.files import (
    BINARY_SNIFF,
    NotRegularFile,
    SecretFile,
    file_kind,
    looks_binary,
    open_regular,
    read_regular,
)

MAX_LINE_CHARS = 2_000
LINE_BYTES = MAX_LINE_CHARS * 4
"""Bytes of one line read at most (2,000 characters of UTF-8); the rest is skipped."""
ENDLESS_LINE = HASH_LIMIT
"""A line longer than this in a file too big to hash is not followed to its end."""
MAX_LIST_ENTRIES = 500
MAX_GLOB_RESULTS = 500
MAX_GREP_LINES = 200
MAX_GREP_LINE_CHARS = 300


def _size(n: int) -> str:
    if n < 1024:
        return f"{n:,} bytes"
    size = n / 1024
    for unit in ("KB", "MB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def _secret_refusal(rel: str) -> ToolError:
    return ToolError(f"{rel} may hold secrets (keys, tokens, passwords), so it is not read "
                     "into the conversation. Ask the user for the specific value you need.",
                     summary=f"refused: {rel} may hold secrets", path=rel)


def _lines(handle: BinaryIO, digest: Any) -> Iterator[tuple[bytes, int]]:
    """Each line as (its first LINE_BYTES bytes, its whole length in bytes): a 1 GB line
    without a newline is never held in memory. `digest` (or None) sees every byte. Without
    a digest, a line longer than ENDLESS_LINE is not followed to its end: its length is
    given as -1 and nothing after it is read."""
    while True:
        raw = handle.readline(LINE_BYTES)
        if not raw:
            return
        if digest is not None:
            digest.update(raw)
        length = len(raw)
        if len(raw) == LINE_BYTES and not raw.endswith(b"\n"):
            while rest := handle.readline(1 << 20):  # skip to the end of this line
                if digest is not None:
                    digest.update(rest)
                length += len(rest)
                if rest.endswith(b"\n"):
                    break
                if digest is None and length > ENDLESS_LINE:
                    yield raw, -1
                    return
        yield raw, length


def _shown(raw: bytes, length: int, first: bool) -> tuple[str, bool, bool]:
    """(the text shown for one line, whether bytes were undecodable, whether it was cut)."""
    if b"\x00" in raw:  # binary data past the sniffed head: never shown as text
        size = f"more than {_size(ENDLESS_LINE)}" if length < 0 else f"{length:,} bytes"
        return f"[binary data: {size} not shown]", False, False
    text, lossy = _decode_line(raw, cut=length < 0 or length > len(raw))
    if first:
        text = text.removeprefix("\ufeff")
    if len(text) <= MAX_LINE_CHARS and 0 <= length <= len(raw):
        return text, lossy, False
    kept = text[:MAX_LINE_CHARS]
    more = f"more than {_size(ENDLESS_LINE)}" if length < 0 else \
        f"{length - len(kept.encode('utf-8', 'replace')):,} more bytes"
    return f"{kept}… [line cut: {more}]", lossy, True


def _decode_line(raw: bytes, *, cut: bool) -> tuple[str, bool]:
    """A line's text without its end of line, and whether bytes had to be replaced (a
    character split by the cut of a long line is dropped, not replaced)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut and exc.start >= len(raw) - 3:
            try:
                return raw[:exc.start].decode("utf-8"), False
            except UnicodeDecodeError:
                pass
        return raw.decode("utf-8", errors="replace").rstrip("\r\n"), True
    return text.rstrip("\r\n"), False


def _open_for_tool(ws: WorkspaceFiles, real: Path, rel: str) -> BinaryIO:
    """The file opened by `open_regular` (`real` is resolved), FIFOs, devices, sockets and
    other names of secret files (judged on the descriptor) refused as a ToolError."""
    try:
        return open_regular(real, name=rel, follow_symlinks=False,
                            refuse=secret_files(ws.root).opened)
    except SecretFile:
        raise _secret_refusal(rel) from None
    except NotRegularFile as exc:
        raise ToolError(f"{exc.message}. Only regular files can be read.",
                        summary=f"skipped: {rel} is {exc.kind}", path=rel) from None


def read_file(ws: WorkspaceFiles, ledger: ReadLedger, settings: Settings,
              args: ReadFileArgs) -> ToolResult:
    """Numbered lines of a text file, from `offset`, at most `limit` lines and
    `max_file_bytes` bytes."""
    real, rel = ws.resolve(args.path)
    if real.is_dir():
        raise ToolError(f"{rel} is a directory; use list_dir to see what it holds.",
                        summary=f"{rel} is a directory", path=rel)
    if not os.path.lexists(real):
        raise ToolError(f"no such file: {rel}. Use glob or list_dir to find the right path.",
                        summary=f"no such file: {rel}", path=rel)
    if secret_files(ws.root)(rel, walked=True):  # resolved: `rel` is its own target
        raise _secret_refusal(rel)
    offset = args.offset or 1
    limit = min(args.limit or settings.max_read_lines, settings.max_read_lines)
    budget = settings.max_file_bytes
    lines: list[str] = []
    notes: list[str] = []
    total = 0
    cut_by_bytes = lossy = long_lines = False
    with _open_for_tool(ws, real, rel) as handle:
        size = os.fstat(handle.fileno()).st_size
        head = handle.read(BINARY_SNIFF)
        if looks_binary(head):
            raise ToolError(f"{rel} is a binary file ({_size(size)}); it is not shown as text.",
                            summary=f"refused: {rel} is binary ({_size(size)})", path=rel)
        handle.seek(0)
        hashing = size <= HASH_LIMIT
        digest = hashlib.sha256() if hashing else None
        for raw, length in _lines(handle, digest):
            total += 1
            endless = length < 0
            if total < offset or len(lines) >= limit or cut_by_bytes:
                if endless and total < offset:
                    raise ToolError(
                        f"line {total:,} of {rel} is longer than {_size(ENDLESS_LINE)}; "
                        "read_file cannot go past it. Use a bash command such as "
                        "`tail -c` instead.", summary=f"{rel}: a line too long", path=rel)
                if not hashing and (len(lines) >= limit or cut_by_bytes):
                    break  # too big to hash: no need to count every line
                continue
            text, bad, was_cut = _shown(raw, length, total == 1)
            lossy, long_lines = lossy or bad, long_lines or was_cut
            budget -= ENDLESS_LINE if endless else length
            if budget < 0 and lines:
                cut_by_bytes = True
                continue
            lines.append(f"{total:>6}\t{text}")
            if endless:
                notes.append(f"[line {total:,} is longer than {_size(ENDLESS_LINE)}: nothing "
                             "after it was read]")
    shown = len(lines)
    last = offset + shown - 1
    counted = hashing  # the total is only exact when the whole file was scanned
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
    if digest is not None:
        stamp = ledger.record(real, digest.hexdigest())
        if stamp is not None:
            data.update(mtime_ns=stamp.mtime_ns, sha256=stamp.sha256)
    word = "line" if shown == 1 else "lines"
    return ToolResult(content=content, summary=f"read {shown:,} {word} of {rel}{cut}",
                      path=rel, data=data)


def list_dir(ws: WorkspaceFiles, args: ListDirArgs) -> ToolResult:
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
            elif (kind := _special_kind(entry)) is not None:
                entries.append(f"{entry.name}  [{kind}, not a regular file: not readable]")
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


def _special_kind(entry: os.DirEntry[str]) -> str | None:
    """"a FIFO", "a socket"… for an entry that is not a regular file, else None."""
    try:
        return file_kind(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return None


def _walk(ws: WorkspaceFiles, start: Path,
          pattern: str | None = None) -> Iterator[tuple[Path, str]]:
    """Files under `start` as (real path, relative path), ignored directories pruned
    (unless the glob explicitly names one)."""
    named = set(pattern.split("/")) if pattern else set()
    for dirpath, dirnames, filenames in os.walk(start):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS or d in named)
        for name in sorted(filenames):
            real = Path(dirpath) / name
            yield real, real.relative_to(ws.root).as_posix()


def _too_slow(tool: str, pattern: str) -> ToolError:
    what = "regular expression" if tool == "grep" else "glob"
    return ToolError(f"the {what} {pattern!r} took longer than {MATCH_SECONDS:g} s on a single "
                     "input and was stopped: nested repetition such as (a+)+ or (a|aa)* (or "
                     "many * in a glob) backtracks without end. Simplify the pattern.",
                     summary=f"{tool}: pattern too slow, stopped")


def _check_glob(pattern: str) -> None:
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise ToolError(f"glob {pattern!r} must be relative to the workspace and stay inside it.",
                        summary="refused: glob outside the workspace")


def glob(ws: WorkspaceFiles, args: GlobArgs) -> ToolResult:
    """Workspace files matching a glob, sorted, capped."""
    _check_glob(args.pattern)
    pattern = BoundedPattern.glob(args.pattern)
    try:
        matches = [rel for _, rel in _walk(ws, ws.root, args.pattern) if pattern.match(rel)]
    except PatternTooSlow:
        raise _too_slow("glob", args.pattern) from None
    shown = matches[:MAX_GLOB_RESULTS]
    lines = shown or [f"no files match {args.pattern!r}"]
    if len(matches) > len(shown):
        lines.append(f"[… {len(matches) - len(shown):,} more files not shown; narrow the "
                     "pattern]")
    noun = "file" if len(matches) == 1 else "files"
    return ToolResult(content="\n".join(lines), data={"matches": len(matches)},
                      summary=f"{len(matches):,} {noun} match {args.pattern}")


def grep(ws: WorkspaceFiles, settings: Settings, args: GrepArgs) -> ToolResult:
    """Lines matching a Python regular expression, as path:line: text."""
    try:
        regex = BoundedPattern(args.pattern)
    except PatternError as exc:
        raise ToolError(f"invalid regular expression {args.pattern!r}: {exc}. It is a Python "
                        "regex: escape special characters such as ( [ . * with a backslash.",
                        summary="invalid regular expression") from None
    real, rel = ws.resolve(args.path)
    if not real.exists():
        raise ToolError(f"no such file or directory: {rel}", summary=f"no such path: {rel}")
    if args.glob:
        _check_glob(args.glob)
    file_regex = BoundedPattern.glob(args.glob) if args.glob else None
    files = _walk(ws, real, args.glob) if real.is_dir() else [(real, rel)]
    out: list[str] = []
    hits = hit_files = hidden_hits = 0
    skipped: dict[str, int] = {"binary": 0, "large": 0, "secret": 0, "outside": 0,
                               "special": 0}
    special: list[str] = []
    rule = secret_files(ws.root)
    try:
        for path, name in files:
            if file_regex is not None and not file_regex.match(name):
                continue
            if rule(name, walked=not path.is_symlink()):  # a link: by its target too
                skipped["secret"] += 1
                continue
            if path.is_symlink() and not os.path.realpath(path).startswith(f"{ws.root}/"):
                skipped["outside"] += 1  # the walk lists links to files: those inside only
                continue
            try:
                data, size = read_regular(path, settings.max_file_bytes + 1, name=name,
                                          follow_symlinks=path.is_symlink(),
                                          refuse=rule.opened)
            except SecretFile:
                skipped["secret"] += 1
                continue
            except NotRegularFile as exc:
                skipped["special"] += 1
                special.append(f"{name} ({exc.kind})")
                continue
            except OSError:
                continue
            if size > settings.max_file_bytes or len(data) > settings.max_file_bytes:
                skipped["large"] += 1
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
    except PatternTooSlow:
        raise _too_slow("grep", args.pattern) from None
    where = "the workspace" if rel == "." else rel
    lines = out or [f"no matches for {args.pattern!r} in {where}"]
    if hidden_hits:
        lines.append(f"[… {hidden_hits:,} more matching lines not shown (first "
                     f"{MAX_GREP_LINES} of {hits:,}); narrow the pattern, path or glob]")
    reasons = {"binary": "binary", "large": f"larger than {_size(settings.max_file_bytes)}",
               "secret": "may hold secrets",
               "outside": "symlinks leading outside the workspace",
               "special": "not regular files, not read: " + ", ".join(special[:5])
                          + (" …" if len(special) > 5 else "")}
    for kind, count in skipped.items():
        if count:
            lines.append(f"[skipped {count:,} {'file' if count == 1 else 'files'}: "
                         f"{reasons[kind]}]")
    summary = f"{hits:,} {'hit' if hits == 1 else 'hits'} in {hit_files:,} " \
              f"{'file' if hit_files == 1 else 'files'}"
    if hidden_hits:
        summary += f" (showing {MAX_GREP_LINES})"
    if special:
        summary += f"; skipped {', '.join(special[:3])}{' …' if len(special) > 3 else ''}: " \
                   "not a regular file"
    return ToolResult(content="\n".join(lines), summary=summary,
                      data={"hits": hits, "files": hit_files, "skipped": skipped})
