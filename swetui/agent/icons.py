"""One icon per tool, shared by the transcript and `swetui run`. Single-width glyphs, so
columns line up in every terminal (emoji widths vary between terminals)."""

TOOL_ICONS: dict[str, str] = {
    "read_file": "≡",
    "grep": "⌕",
    "list_dir": "▤",
    "glob": "✱",
    "edit_file": "✎",
    "write_file": "✚",
    "bash": "$",
    "recall": "↺",
    "todo": "☐",
}


def tool_icon(name: str) -> str:
    return TOOL_ICONS.get(name, "•")
