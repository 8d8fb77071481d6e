"""Checkpoints of the files the agent changed, so an applied edit or write can be undone.

Each checkpoint is one JSON file under `.swetui/checkpoints/` (written atomically), holding
the file's bytes before the change; when `.swetui/` cannot be written they stay in memory.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import time
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from swetui.agent.tools.workspace import sha256_bytes
from swetui.files import atomic_write, read_regular
from swetui.paths import WorkspacePaths

log = logging.getLogger(__name__)

CHECKPOINT_MAX_BYTES = 256 * 1024 * 1024
"""Far above any checkpoint swetui writes (an 8 MB file, base64): a bigger one is not read."""


class Checkpoint(BaseModel):
    """A file as it was before one change by the agent."""

    id: str
    path: str
    """Workspace-relative path of the changed file."""
    before: str | None
    """Base64 of the old bytes; None when the agent created the file."""
    mode: int | None = None
    """The old file's permission bits."""
    after_sha256: str
    """Hash of what the agent wrote: undo refuses to clobber later changes."""
    created_dirs: list[str] = Field(default_factory=list)
    """Directories the change created (removed again by undo when empty)."""
    call_id: str | None = None
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    def before_bytes(self) -> bytes | None:
        return None if self.before is None else base64.b64decode(self.before)


class Checkpoints:
    """The stack of checkpoints of one workspace, newest last."""

    def __init__(self, root: Path, *, persist: bool = True) -> None:
        self._paths = WorkspacePaths(root)
        # Created on the first checkpoint, so opening a workspace leaves no trace in it.
        self.dir: Path | None = self._paths.checkpoints if persist else None
        self._memory: list[Checkpoint] = []

    @property
    def persistent(self) -> bool:
        return self.dir is not None

    def record(self, path: str, before: bytes | None, after: bytes, *, mode: int | None = None,
               created_dirs: list[str] | None = None, call_id: str | None = None) -> Checkpoint:
        """Save the state before a change the agent is about to make."""
        # A nanosecond counter keeps file names in creation order across restarts.
        checkpoint = Checkpoint(
            id=f"{time.time_ns():020d}", path=path,
            before=None if before is None else base64.b64encode(before).decode("ascii"),
            mode=mode, after_sha256=sha256_bytes(after), created_dirs=created_dirs or [],
            call_id=call_id,
        )
        if self.dir is not None:
            try:
                self._paths.ensure(self.dir)
                atomic_write(self.dir / f"{checkpoint.id}.json",
                             checkpoint.model_dump_json().encode("utf-8"))
                return checkpoint
            except OSError:
                log.warning("cannot write checkpoints to %s; keeping them in memory", self.dir)
                self.dir = None
        self._memory.append(checkpoint)
        return checkpoint

    def list(self) -> list[Checkpoint]:
        """Every checkpoint, oldest first."""
        found = list(self._memory)
        if self.dir is not None and self.dir.is_dir():
            for file in sorted(self.dir.glob("*.json")):
                try:
                    data = read_regular(file, CHECKPOINT_MAX_BYTES)[0]
                    found.append(Checkpoint.model_validate(json.loads(data)))
                except (OSError, ValueError, ValidationError):
                    log.warning("skipping unreadable checkpoint %s", file)
        return sorted(found, key=lambda checkpoint: checkpoint.id)

    def last(self) -> Checkpoint | None:
        found = self.list()
        return found[-1] if found else None

    def drop(self, checkpoint: Checkpoint) -> None:
        """Forget a checkpoint (after it was restored, or when its change failed)."""
        self._memory = [c for c in self._memory if c.id != checkpoint.id]
        if self.dir is not None:
            with contextlib.suppress(OSError):
                (self.dir / f"{checkpoint.id}.json").unlink()
