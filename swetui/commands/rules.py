"""`swetui rules [PATH] [--remove N]`: the workspace's remembered approval decisions."""

from __future__ import annotations

from pathlib import Path

from swetui.agent import (
    WorkspaceRules,
)
from swetui.engine.workspace import check_workspace
from swetui.trust_review import visible


def show_rules(path: Path, remove: int | None = None) -> int:
    rules = WorkspaceRules(check_workspace(path))
    current = rules.list()
    if remove is not None:
        if not 1 <= remove <= len(current):
            print(f"swetui: no rule {remove}; there are {len(current)} (`swetui rules` lists them)")
            return 1
        rule = current[remove - 1]
        rules.remove(remove - 1)
        print(f"Removed rule {remove}: {rule.action} {rule.kind} {visible(repr(rule.pattern))}")
        current = rules.list()
    waiting = len(rules.stored()) - len(current)
    if not current:
        print(f"No remembered approval rules in {rules.file}.")
    else:
        print(f"Remembered approval rules ({rules.file}):")
    for number, rule in enumerate(current, 1):
        print(f"  {number}. {rule.action:<5} {rule.kind:<7} {visible(rule.pattern)}")
    if waiting:
        print(f"\n{waiting} allow rule{'s' if waiting != 1 else ''} in the file "
              f"{'do' if waiting != 1 else 'does'} not apply: you have not trusted it "
              "(swetui trust shows and trusts it).")
    if not current:
        return 0
    print("\nProtected paths and dangerous commands always ask, whatever a rule says.\n"
          "Remove one with: swetui rules --remove N")
    return 0
