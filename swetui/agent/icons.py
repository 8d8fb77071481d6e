"""One icon per tool, shared by the transcript and `swetui run`."""

TOOL_ICONS = {
    "read_file": "📖",
    "list_dir": "📂",
    "glob": "🗂",
    "grep": "🔍",
    "edit_file": "✏️",
    "write_file": "📝",
    "bash": "⚡",
    "recall": "🧠",
}


def tool_icon(name: str) -> str:
    return TOOL_ICONS.get(name, "🔧")
