"""An approved edit or write that swetui stopped applying (killed after the approval, before
its result was recorded): the file tells whether it landed.

Writes are atomic, so the file holds either the old content or the new one. On resume the
model and the user are told which, instead of "it may or may not have taken effect"; a temp
file the write left next to the file is removed, and the checkpoint of a change that never
landed is dropped, so undo does not offer to revert it.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

from swetui.agent.tools.base import ToolError
from swetui.agent.tools.checkpoints import Checkpoints
from swetui.agent.tools.files import EDIT_MAX_BYTES
from swetui.agent.tools.workspace import WorkspaceFiles, decode_text
from swetui.agent.unfinished import UnfinishedCall
from swetui.files import leftover_temps, read_regular

_UNKNOWN = object()


class WriteRecovery:
    """Settles interrupted edits and writes against the workspace on disk."""

    def __init__(self, workspace: WorkspaceFiles, checkpoints: Checkpoints) -> None:
        self.workspace = workspace
        self.checkpoints = checkpoints

    def settle(self, call: UnfinishedCall) -> tuple[UnfinishedCall, str | None]:
        """The call with a result that says whether the change landed, and a notice."""
        action = call.action or {}
        kind, path = action.get("kind"), action.get("path")
        if kind not in ("edit", "write") or not isinstance(path, str):
            return call, None
        try:
            real, rel = self.workspace.resolve(path)
        except ToolError:
            return call, None
        for temp in leftover_temps(real):
            with contextlib.suppress(OSError):
                temp.unlink()
        current = self._text(real, rel)
        what = f"{'an edit' if kind == 'edit' else 'a write'} to {rel}"
        notice = f"swetui stopped while applying {what}: "
        if current is not _UNKNOWN and current == action.get("new_content"):
            return replace(call, is_error=False, summary="applied; swetui stopped before "
                           "recording it", content=f"Applied: swetui stopped right after "
                           f"writing this change to {rel}, before recording it; the file "
                           "has the new content."), notice + "applied"
        if current is not _UNKNOWN and current == action.get("old_content"):
            for checkpoint in self.checkpoints.list():
                if checkpoint.call_id == call.call_id:
                    self.checkpoints.drop(checkpoint)
            return replace(call, summary="not applied: swetui stopped while writing it",
                           content=f"Not applied: swetui stopped while writing this change "
                           f"to {rel}; the file is unchanged. Make the change again if it "
                           "is still wanted."), notice + "not applied, the file is unchanged"
        return call, notice + "the file changed since; check it"

    @staticmethod
    def _text(real: Path, rel: str) -> object:
        """The file's text as edits see it; None when it does not exist."""
        try:
            data = read_regular(real, EDIT_MAX_BYTES + 1, name=rel, follow_symlinks=False)[0]
            return decode_text(data, rel).text
        except FileNotFoundError:
            return None
        except (OSError, ToolError):
            return _UNKNOWN
