"""edit_file and write_file: preparing a change for approval, applying it, undoing it.

A change is prepared into a `PendingAction` (with its diff) before anyone approves it, and
applied only if the file on disk is still exactly what the diff was computed against.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from swetui.agent.diffs import compute_hunks, diff_stats, unified_diff
from swetui.agent.events import ActionKind, PendingAction
from swetui.agent.sandbox import secret_files
from swetui.agent.sensitive import escape_glob, protected_path_reason
from swetui.agent.tools.base import EditFileArgs, ToolError, WriteFileArgs
from swetui.agent.tools.checkpoints import Checkpoints
from swetui.agent.tools.workspace import (
    HASH_LIMIT,
    ReadLedger,
    TextFile,
    WorkspaceFiles,
    decode_text,
    sha256_bytes,
)
from swetui.files import NotRegularFile, SecretFile, atomic_write, read_error, read_regular
from swetui.messages import ToolCall

EDIT_MAX_BYTES = 8 * 1024 * 1024


def _read_existing(ws: WorkspaceFiles, real: Path, rel: str, ledger: ReadLedger) -> bytes:
    if real.is_dir():
        raise ToolError(f"{rel} is a directory, not a file.", summary=f"{rel} is a directory",
                        path=rel)
    data = _read_regular(ws, real, rel)
    if ledger.is_stale(real, data):
        raise ToolError(
            f"{rel} changed on disk since you last read it (someone else edited it). Read it "
            "again with read_file, then redo your change against the current content.",
            summary=f"refused: {rel} changed since it was read", path=rel)
    return data


def _read_regular(ws: WorkspaceFiles, real: Path, rel: str) -> bytes:
    """The bytes of the regular file `real` (never a FIFO or device: refused without
    blocking; never another name of a secret file: editing it would copy the secret into
    a file of that innocent name), at most EDIT_MAX_BYTES."""
    try:
        data, size = read_regular(real, EDIT_MAX_BYTES + 1, name=rel, follow_symlinks=False,
                                  refuse=secret_files(ws.root).opened)
    except SecretFile:
        raise ToolError(f"{rel} is another name (hard link) of a secret file; it is not read "
                        "or changed by the tools.", summary=f"refused: {rel} may hold secrets",
                        path=rel) from None
    except NotRegularFile as exc:
        raise ToolError(f"{exc.message}. Only regular files can be edited or replaced.",
                        summary=f"refused: {rel} is {exc.kind}", path=rel) from None
    if len(data) > EDIT_MAX_BYTES:
        raise ToolError(f"{rel} is too large to edit here ({size:,} bytes); use a bash "
                        "command such as sed instead.", summary=f"{rel} is too large", path=rel)
    return data


def _lenient(data: bytes, rel: str) -> TextFile:
    """For overwriting: a file that cannot be edited as text can still be replaced."""
    try:
        return decode_text(data, rel)
    except ToolError:
        return TextFile(text=data.decode("utf-8", "replace"), newline="\n", bom=False)


def _action(call: ToolCall, kind: ActionKind, ws: WorkspaceFiles, rel: str, old: str | None,
            new: str) -> PendingAction:
    hunks = compute_hunks(old or "", new)
    added, removed = diff_stats(hunks)
    verb = "edit" if kind == "edit" else ("create" if old is None else "overwrite")
    return PendingAction(
        call=call, kind=kind, path=rel, cwd=str(ws.root), old_content=old, new_content=new,
        hunks=hunks, diff=unified_diff(old, new, rel, hunks),
        protected=protected_path_reason(rel), rule_hint=escape_glob(rel),
        summary=f"{verb} {rel} (+{added} −{removed})",
    )


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def prepare_edit(ws: WorkspaceFiles, ledger: ReadLedger, call: ToolCall,
                 args: EditFileArgs) -> PendingAction:
    """The pending edit replacing the unique occurrence of `old`, or a `ToolError` telling
    the model exactly what to fix."""
    real, rel = ws.resolve(args.path)
    if not real.exists():
        raise ToolError(f"no such file: {rel}. To create a file, use write_file.",
                        summary=f"no such file: {rel}", path=rel)
    current = decode_text(_read_existing(ws, real, rel, ledger), rel)
    text = current.text
    old, new = args.old, args.new
    if current.newline == "\r\n":  # the model saw the lines without their '\r'
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if not old:
        raise ToolError("old is empty: give the exact text to replace (to create or replace "
                        "a whole file, use write_file).", summary="edit: old is empty", path=rel)
    if old == new:
        raise ToolError("old and new are identical: there is nothing to change.",
                        summary="edit: no change", path=rel)
    first = text.find(old)
    if first == -1:
        hint = ""
        stripped = old.strip()
        if stripped and stripped in text:
            hint = (f" Ignoring leading/trailing whitespace it matches at line "
                    f"{_line_of(text, text.find(stripped))}: check indentation and blank lines.")
        else:
            head = next((line.strip() for line in old.split("\n") if line.strip()), "")
            lines = [n for n, line in enumerate(text.split("\n"), 1) if head and head in line]
            if lines:
                where = ", ".join(map(str, lines[:5]))
                hint = f" Its first line appears at line {where}; the lines after it differ."
        raise ToolError(
            f"old text not found in {rel}. It must match the file exactly, including "
            f"whitespace and indentation.{hint} Read the file again with read_file and copy "
            "the lines exactly.", summary=f"edit: no match in {rel}", path=rel)
    positions = [first]
    index = text.find(old, first + 1)
    while index != -1:
        positions.append(index)
        index = text.find(old, index + 1)
    if len(positions) > 1:
        where = ", ".join(str(_line_of(text, p)) for p in positions[:10])
        raise ToolError(
            f"old text occurs {len(positions)} times in {rel} (lines {where}). Include more "
            "surrounding lines in old so that it matches exactly one place.",
            summary=f"edit: {len(positions)} matches in {rel}", path=rel)
    updated = text[:first] + new + text[first + len(old):]
    return _action(call, "edit", ws, rel, text, updated)


def prepare_write(ws: WorkspaceFiles, ledger: ReadLedger, call: ToolCall,
                  args: WriteFileArgs) -> PendingAction:
    """The pending creation or overwrite of a whole file."""
    real, rel = ws.resolve(args.path)
    if rel == ".":
        raise ToolError("write_file needs a file path, not the workspace root.",
                        summary="write: no file name")
    old: str | None = None
    content = args.content
    if real.exists():
        current = _lenient(_read_existing(ws, real, rel, ledger), rel)
        old = current.text
        if current.newline == "\r\n":
            content = content.replace("\r\n", "\n")
    elif real.parent.exists() and not real.parent.is_dir():
        raise ToolError(f"cannot create {rel}: {ws.relative(real.parent)} is a file.",
                        summary=f"write: bad path {rel}", path=rel)
    return _action(call, "write", ws, rel, old, content)


def apply_change(ws: WorkspaceFiles, ledger: ReadLedger, checkpoints: Checkpoints,
                 action: PendingAction, final: str) -> str:
    """Write `final` for an approved edit/write, checkpointed and atomic; returns the new
    sha256. Refused when the file changed while the action waited."""
    real, rel = ws.resolve(action.path)
    created_dirs: list[str] = []
    if action.old_content is None:
        if real.exists():
            raise ToolError(f"{rel} was created by someone else while your write waited for "
                            "approval; read it, then decide again.",
                            summary=f"refused: {rel} appeared meanwhile", path=rel)
        before, mode, encoder = None, None, TextFile("", "\n", False)
        missing = real.parent
        while not missing.exists():
            created_dirs.insert(0, ws.relative(missing))
            missing = missing.parent
        real.parent.mkdir(parents=True, exist_ok=True)
    else:
        if not os.path.lexists(real):
            raise ToolError(f"{rel} was removed while the change waited for approval.",
                            summary=f"refused: {rel} is gone", path=rel)
        before = _read_regular(ws, real, rel)
        encoder = decode_text(before, rel) if action.kind == "edit" else _lenient(before, rel)
        if encoder.text != action.old_content:
            raise ToolError(f"{rel} changed on disk while the change waited for approval. Read "
                            "it again and redo the change.",
                            summary=f"refused: {rel} changed meanwhile", path=rel)
        mode = real.stat().st_mode
    data = encoder.encode(final)
    checkpoint = checkpoints.record(rel, before, data, mode=mode, created_dirs=created_dirs,
                                    call_id=action.call.id)
    try:
        atomic_write(real, data, mode)
    except OSError as exc:
        checkpoints.drop(checkpoint)
        raise ToolError(f"cannot write {rel}: {exc.strerror or exc}",
                        summary=f"write failed: {rel}", path=rel) from None
    digest = sha256_bytes(data)
    ledger.record(real, digest)
    return digest


def undo_last(ws: WorkspaceFiles, ledger: ReadLedger, checkpoints: Checkpoints,
              force: bool = False) -> tuple[str, str | None]:
    """Restore the newest checkpoint; returns (message, path). Refuses to clobber changes
    made to the file after the agent's edit unless `force`."""
    checkpoint = checkpoints.last()
    if checkpoint is None:
        return "Nothing to undo: the agent has not changed any file.", None
    try:
        real, rel = ws.resolve(checkpoint.path)
    except ToolError as exc:
        checkpoints.drop(checkpoint)
        return f"Cannot undo: {exc.message}", None
    try:
        current: bytes | None = read_regular(real, HASH_LIMIT + 1, name=rel,
                                             follow_symlinks=False)[0]
    except FileNotFoundError:
        current = None
    except OSError as exc:
        return f"Cannot undo the change to {rel}: {read_error(rel, exc)}", rel
    if current is not None and sha256_bytes(current) != checkpoint.after_sha256 and not force:
        return (f"Cannot undo the change to {rel}: the file changed after the agent wrote it. "
                "Undo would lose those changes (force it to restore anyway).", rel)
    before = checkpoint.before_bytes()
    if before is None:
        if current is not None:
            real.unlink()
        for folder in reversed(checkpoint.created_dirs):
            with contextlib.suppress(OSError):  # only if still empty
                os.rmdir(ws.root / folder)
        ledger.forget(real)
        message = f"Undid the creation of {rel}: the file was removed."
    else:
        real.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(real, before, checkpoint.mode)
        ledger.record(real, sha256_bytes(before))
        message = f"Undid the agent's change to {rel}: the previous content is back."
    checkpoints.drop(checkpoint)
    return message, rel
