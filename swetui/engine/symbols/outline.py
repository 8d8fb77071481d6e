"""The ranked repository outline (a repository map): the most used files first, each with
its most referenced definitions, within a line budget."""

from __future__ import annotations

from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.generated import skipped_note
from swetui.engine.symbols.symbol_map import SymbolIndex

OUTLINE_LINES = 150
PER_FILE = 8
PER_CLASS = 4
_WORD = {"class": "class", "function": "def", "method": "def", "constant": "const"}


def _line(definition: Definition, indent: str) -> str:
    return f"{indent}{_WORD.get(definition.kind, definition.kind)} {definition.name}" \
           f"  :{definition.start}"


def outline(index: SymbolIndex, max_lines: int = OUTLINE_LINES) -> str:
    """Files by rank with their most referenced top-level definitions (and a class's most
    referenced methods); says how much was left out."""
    files = sorted(index.by_file, key=lambda rel: (-index.file_rank.get(rel, 0.0), rel))
    total = sum(len(index.by_file[rel].definitions) for rel in files)
    lines = [f"Repository map: {len(files):,} files, {total:,} definitions; most used first "
             "(line numbers after ':')."]
    if index.skipped:
        lines.append(skipped_note(index.skipped))
    shown_files = 0
    for rel in files:
        definitions = index.by_file[rel].definitions
        top = [d for d in definitions if "." not in d.qualname]
        if not top:
            continue
        top.sort(key=lambda d: (-index.referenced.get(d.name, 0), d.start))
        block = [rel]
        for definition in sorted(top[:PER_FILE], key=lambda d: d.start):
            block.append(_line(definition, "  "))
            if definition.kind == "class":
                members = [d for d in definitions
                           if d.qualname.startswith(definition.qualname + ".")
                           and d.qualname.count(".") == 1 and not d.name.startswith("__")]
                members.sort(key=lambda d: (-index.referenced.get(d.name, 0), d.start))
                block += [_line(d, "    ") for d in sorted(members[:PER_CLASS],
                                                          key=lambda d: d.start)]
        if len(lines) + len(block) > max_lines:
            break
        lines += block
        shown_files += 1
    if shown_files < len(files):
        lines.append(f"… {len(files) - shown_files:,} more files (ask for a name to see it)")
    return "\n".join(lines)
