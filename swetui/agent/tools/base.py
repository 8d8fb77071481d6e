"""What every tool returns, the error tools raise, and the validated argument models.

Tools raise `ToolError` for anything the model did wrong or the workspace refused; the
toolbox turns it into an error `ToolResult` the model sees, so a bad call never crashes a
turn.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class ToolResult(BaseModel):
    """The outcome of one tool call."""

    content: str
    """What the model sees."""
    is_error: bool = False
    summary: str = ""
    """One line for the transcript."""
    path: str | None = None
    """The workspace-relative file the tool touched, if any."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Structured extras (file stamps, hunks kept, exit code ...)."""


class ToolError(Exception):
    """A refusal or failure the model should read; `str(error)` is the message."""

    def __init__(self, message: str, summary: str | None = None, path: str | None = None):
        super().__init__(message)
        self.message = message
        self.summary = summary or message.splitlines()[0][:120]
        self.path = path

    def result(self) -> ToolResult:
        return ToolResult(content=f"Error: {self.message}", is_error=True,
                          summary=self.summary, path=self.path)


class _Args(BaseModel):
    # Extra keys are refused so a misspelt argument is reported, not silently ignored.
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReadFileArgs(_Args):
    path: str
    offset: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1)


class ListDirArgs(_Args):
    path: str | None = None


class GlobArgs(_Args):
    pattern: str = Field(min_length=1)


class GrepArgs(_Args):
    pattern: str = Field(min_length=1)
    path: str | None = None
    glob: str | None = None


class EditFileArgs(_Args):
    path: str
    old: str
    new: str


class WriteFileArgs(_Args):
    path: str
    content: str


class BashArgs(_Args):
    command: str = Field(min_length=1)
    timeout: float | None = Field(default=None, gt=0)


class RecallArgs(_Args):
    id: str = Field(min_length=1)
    form: Literal["header", "summary", "full"]


class TodoEntry(BaseModel):
    """One task of the model's plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str = Field(min_length=1, max_length=500)
    status: Literal["pending", "in_progress", "completed"] = "pending"


class TodoArgs(_Args):
    items: list[TodoEntry] = Field(max_length=50)


ARGUMENT_MODELS: dict[str, type[_Args]] = {
    "read_file": ReadFileArgs,
    "list_dir": ListDirArgs,
    "glob": GlobArgs,
    "grep": GrepArgs,
    "edit_file": EditFileArgs,
    "write_file": WriteFileArgs,
    "bash": BashArgs,
    "recall": RecallArgs,
    "todo": TodoArgs,
}


def parse_arguments(name: str, arguments: Any) -> _Args:
    """Validate a call's arguments; raises `ToolError` naming every problem."""
    model = ARGUMENT_MODELS.get(name)
    if model is None:
        known = ", ".join(sorted(ARGUMENT_MODELS))
        raise ToolError(f"unknown tool {name!r}. The tools are: {known}.",
                        summary=f"unknown tool {name}")
    if not isinstance(arguments, dict):
        raise ToolError(f"{name}: the arguments must be a JSON object, got "
                        f"{type(arguments).__name__}. Send them again as a JSON object.",
                        summary=f"{name}: malformed arguments")
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "arguments"
            message = "unknown argument" if error["type"] == "extra_forbidden" else error["msg"]
            problems.append(f"{where}: {message}")
        expected = ", ".join(
            f"{field}{'' if info.is_required() else '?'}"
            for field, info in model.model_fields.items()
        )
        raise ToolError(f"{name}: bad arguments ({'; '.join(problems)}). "
                        f"Expected: {name}({expected}).",
                        summary=f"{name}: bad arguments") from None
