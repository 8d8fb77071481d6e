"""`swetui rules [PATH] [--remove N]`: the workspace's remembered approval decisions."""

from __future__ import annotations

from pathlib import Path

from swetui.agent.rules import WorkspaceRules
from swetui.engine.workspace import check_workspace


def show_rules(path: Path, remove: int | None = None) -> int:
    rules = WorkspaceRules(check_workspace(path))
    current = rules.list()
    if remove is not None:
        if not 1 <= remove <= len(current):
            print(f"swetui: no rule {remove}; there are {len(current)} (`swetui rules` lists them)")
            return 1
        rule = current[remove - 1]
        rules.remove(remove - 1)
        print(f"Removed rule {remove}: {rule.action} {rule.kind} {rule.pattern!r}")
        current = rules.list()
    if not current:
        print(f"No remembered approval rules in {rules.file}.")
        return 0
    print(f"Remembered approval rules ({rules.file}):")
    for number, rule in enumerate(current, 1):
        print(f"  {number}. {rule.action:<5} {rule.kind:<7} {rule.pattern}")
    print("\nProtected paths and dangerous commands always ask, whatever a rule says.\n"
          "Remove one with: swetui rules --remove N")
    return 0
