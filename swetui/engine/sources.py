"""Workspace sources: the system prompt, tool schemas, project memory and session notes,
each turned into items of the right layer. Bad files are reported, never fatal."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from swetui.engine.assembly import tool_schema_text
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.files import (
    NotRegularFile,
    Refuse,
    SecretFile,
    SecretRule,
    inside,
    looks_binary,
    open_regular,
    read_error,
    source_lines,
)
from swetui.messages import ToolSchema

MEMORY_FILES = ("SWETUI.md", "AGENTS.md", "CLAUDE.md")
MEMORY_MAX_BYTES = 64_000
"""A memory file is cut here: it shares a 3,000-token layer, so more would only be noise."""

SYSTEM_PROMPT = """\
You are swetui's coding agent, working in the user's repository at {root}.

Work in small, verifiable steps. Read before you edit: `edit_file` needs an exact, unique
match of text you have seen. Prefer `grep` and `glob` to find things and `read_file` with
offset and limit for large files. Every write and command may wait for the user's approval;
when the user denies one, respect the reason they give. Keep answers short and concrete,
name the files and functions you touched, and say plainly what is left to do.
Earlier exchanges may be folded into headers and summaries; `recall` brings one back."""


@dataclass
class LoadedText:
    """A text read from disk with what went wrong on the way, if anything."""

    text: str
    notes: list[str] = field(default_factory=list)
    mtime_ns: int | None = None
    """The file's modification time, taken before reading (so a write during the read
    leaves a time older than the text, and a later check reads the file again)."""

    def lines(self) -> list[str]:
        """The text's lines, numbered as `source_lines` numbers them."""
        return source_lines(self.text)

    @property
    def cut(self) -> bool:
        """Whether only part of the file was read (past `max_bytes`, or up to binary data)."""
        return any(note.startswith("cut") for note in self.notes)


def read_text_file(path: Path, max_bytes: int, *, name: str | None = None,
                   follow_symlinks: bool = True, refuse: Refuse | None = None,
                   ) -> LoadedText | None:
    """Read at most `max_bytes` of a regular text file. Binary → None with nothing read
    further; non-UTF-8 is decoded with replacement characters; both are noted. A FIFO, device
    or socket raises `NotRegularFile` (an OSError) without blocking (see `open_regular`)."""
    with open_regular(path, name=name, follow_symlinks=follow_symlinks,
                      refuse=refuse) as handle:
        mtime_ns = os.fstat(handle.fileno()).st_mtime_ns
        data = handle.read(max_bytes + 1)
        size = os.fstat(handle.fileno()).st_size
    if looks_binary(data):
        return None
    notes = []
    if (nul := data.find(b"\x00", 0, max_bytes)) != -1:
        # Text first, binary later (a sparse file's hole, a corrupted file): keep the text.
        data = data[:nul]
        notes.append(f"cut at byte {nul:,}: binary data follows")
    elif len(data) > max_bytes:
        data = data[:max_bytes]
        notes.append(f"cut to the first {max_bytes:,} of {size:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(data) > max_bytes - 4 and exc.start >= len(data) - 4:
            text = data[:exc.start].decode("utf-8")  # a character split by the cut
        else:
            text = data.decode("utf-8", errors="replace")
            notes.append("not valid UTF-8; undecodable bytes shown as �")
    return LoadedText(text, notes, mtime_ns)


def read_workspace_text(root: Path, rel: str, max_bytes: int,
                        refuse: Refuse | None = None) -> LoadedText | None:
    """`read_text_file` of a workspace-relative path that must still lead inside the
    workspace: a file swapped for a link to `~/.ssh/id_rsa` is refused, not re-read; so is
    one `refuse` says no to once opened (a hard link of a secret)."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(real_root / rel))
    if not inside(real_root, real):
        raise NotRegularFile(rel, "a symbolic link leading outside the workspace")
    return read_text_file(real, max_bytes, name=rel, follow_symlinks=False, refuse=refuse)


def system_items(root: Path, schemas: Iterable[ToolSchema],
                 prompt: str = SYSTEM_PROMPT) -> list[ContextItem]:
    """The system prompt and one item per tool schema (system layer)."""
    items = [ContextItem(id="system", kind=ItemKind.SYSTEM_PROMPT, layer=Layer.SYSTEM,
                         title="System prompt", content=prompt.format(root=root))]
    for schema in schemas:
        items.append(ContextItem(id=f"tool:{schema.name}", kind=ItemKind.TOOL_SCHEMA,
                                 layer=Layer.SYSTEM, title=f"Tool {schema.name}",
                                 content=tool_schema_text(schema)))
    return items


def memory_items(root: Path, notes_path: Path | None = None,
                 secrets: SecretRule | None = None) -> tuple[list[ContextItem], list[str]]:
    """Project memory files and session notes present in the workspace, and warnings for
    the ones that could not be used as they are. A memory file that is another name of a
    secret file (`CLAUDE.md -> .env` shipped by a cloned repository, or a hard link of it),
    by `secrets`, is not read: it would go to the model every turn."""
    items: list[ContextItem] = []
    warnings: list[str] = []
    candidates = [(name, root / name, ItemKind.MEMORY_FILE) for name in MEMORY_FILES]
    if notes_path is not None:
        candidates.append(("Session notes", notes_path, ItemKind.SESSION_NOTES))
    real_root = Path(os.path.realpath(root))
    for title, path, kind in candidates:
        if not os.path.lexists(path):
            continue
        relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        real = Path(os.path.realpath(path))
        if not inside(real_root, real):
            # A cloned repository's CLAUDE.md -> ~/.aws/credentials must not reach the model.
            warnings.append(f"{relative}: a symbolic link leading outside the workspace; "
                            "not read")
            continue
        if secrets is not None and secrets(relative):
            warnings.append(f"{relative}: leads to a file that may hold secrets; not read")
            continue
        try:
            loaded = read_text_file(real, MEMORY_MAX_BYTES, name=relative,
                                    refuse=secrets.opened if secrets is not None else None)
        except FileNotFoundError:
            continue
        except SecretFile:
            warnings.append(f"{relative}: another name (hard link) of a file that may hold "
                            "secrets; not read")
            continue
        except NotRegularFile as exc:
            warnings.append(str(exc))
            continue
        except OSError as exc:
            warnings.append(f"{read_error(relative, exc)}; left out")
            continue
        if loaded is None:
            warnings.append(f"{relative}: binary file, not used as memory")
            continue
        warnings.extend(f"{relative}: {note}" for note in loaded.notes)
        if not loaded.text.strip():
            continue
        item_id = "notes" if kind is ItemKind.SESSION_NOTES else f"mem:{title}"
        items.append(ContextItem(id=item_id, kind=kind, layer=Layer.MEMORY, title=title,
                                 content=loaded.text, origin=Origin.USER,
                                 source=Source(path=relative)))
    return items, warnings
