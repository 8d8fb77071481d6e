"""The tools the model sees, with exactly the names and arguments of DESIGN §4."""

from __future__ import annotations

from swetui.messages import ToolSchema


def _schema(properties: dict[str, dict[str, object]],
            required: list[str]) -> dict[str, object]:
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


TOOL_SCHEMAS: tuple[ToolSchema, ...] = (
    ToolSchema(
        name="read_file",
        description="Read a text file of the workspace. Long files are cut; use offset and "
                    "limit (1-based line numbers) to read further.",
        parameters=_schema({
            "path": {"type": "string", "description": "Path relative to the workspace root."},
            "offset": {"type": "integer", "minimum": 1, "description": "First line to read."},
            "limit": {"type": "integer", "minimum": 1, "description": "Lines to read."},
        }, ["path"]),
    ),
    ToolSchema(
        name="list_dir",
        description="List a directory of the workspace (the root when no path is given).",
        parameters=_schema({"path": {"type": "string"}}, []),
    ),
    ToolSchema(
        name="glob",
        description="Find workspace files whose path matches a glob such as `src/**/*.py`.",
        parameters=_schema({"pattern": {"type": "string"}}, ["pattern"]),
    ),
    ToolSchema(
        name="grep",
        description="Search file contents for a regular expression; returns path:line: text.",
        parameters=_schema({
            "pattern": {"type": "string", "description": "A Python regular expression."},
            "path": {"type": "string", "description": "A file or directory to search in."},
            "glob": {"type": "string", "description": "Only files matching this glob."},
        }, ["pattern"]),
    ),
    ToolSchema(
        name="edit_file",
        description="Replace exactly one occurrence of `old` with `new` in a file. `old` must "
                    "match exactly and be unique; read the file first.",
        parameters=_schema({
            "path": {"type": "string"},
            "old": {"type": "string"},
            "new": {"type": "string"},
        }, ["path", "old", "new"]),
    ),
    ToolSchema(
        name="write_file",
        description="Create a file or replace its whole content.",
        parameters=_schema({"path": {"type": "string"}, "content": {"type": "string"}},
                           ["path", "content"]),
    ),
    ToolSchema(
        name="bash",
        description="Run a shell command in the workspace root; output is capped.",
        parameters=_schema({
            "command": {"type": "string"},
            "timeout": {"type": "number", "description": "Seconds before the command is killed."},
        }, ["command"]),
    ),
    ToolSchema(
        name="recall",
        description="Bring back an archived exchange by id, as its header, summary or full text.",
        parameters=_schema({
            "id": {"type": "string"},
            "form": {"type": "string", "enum": ["header", "summary", "full"]},
        }, ["id", "form"]),
    ),
    ToolSchema(
        name="todo",
        description="Keep your plan: send the whole task list each time it changes (mark "
                    "one task in_progress while you work on it, completed when done). It "
                    "stays in your context through compaction and session chunks.",
        parameters=_schema({
            "items": {"type": "array", "maxItems": 50, "items": {
                "type": "object", "additionalProperties": False, "required": ["content"],
                "properties": {
                    "content": {"type": "string", "description": "The task, one line."},
                    "status": {"type": "string",
                               "enum": ["pending", "in_progress", "completed"]}}}},
        }, ["items"]),
    ),
)

TOOL_NAMES = frozenset(schema.name for schema in TOOL_SCHEMAS)
