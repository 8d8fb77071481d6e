"""The headless half of swetui (engine, agent, providers and the headless commands) works
without Textual: a fresh interpreter imports every one of its modules and Textual never loads.
The static side of the same rule is the import contract (tests/test_import_contracts.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "swetui"

# Imports each module named on the command line in turn and says, as JSON, which were
# imported, which swetui modules were loaded in all, and the first import after which
# `textual` (or any module of `forbidden`) was in sys.modules.
HARNESS = """
import importlib, json, sys
forbidden = tuple(sys.argv[1].split(","))
first = None
for name in sys.argv[2:]:
    importlib.import_module(name)
    if first is None and any(m == f or m.startswith(f + ".")
                             for m in sys.modules for f in forbidden):
        first = name
print(json.dumps({"first": first,
                  "loaded": sorted(m for m in sys.modules if m.startswith("swetui"))}))
"""


def modules_under(*places: str) -> list[str]:
    """Every module in these folders (packages included), found on disk, not by importing."""
    found: list[str] = []
    for place in places:
        target = PACKAGE / place
        files = sorted(target.rglob("*.py")) if target.is_dir() else [target]
        for path in files:
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def import_in_fresh_interpreter(modules: list[str], forbidden: str) -> dict:
    out = subprocess.run([sys.executable, "-c", HARNESS, forbidden, *modules], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


HEADLESS = modules_under("engine", "agent", "providers", "commands", "cli.py", "config.py",
                         "options.py", "paths.py", "secrets.py", "messages.py", "text.py",
                         "trust.py", "trust_review.py", "handover.py", "interrupts.py")


def test_every_headless_module_imports_without_textual():
    assert len(HEADLESS) > 80 and "swetui.commands.run" in HEADLESS
    report = import_in_fresh_interpreter(HEADLESS, "textual")
    assert report["first"] is None, f"importing {report['first']} loaded Textual"
    assert set(HEADLESS) <= set(report["loaded"])


def test_the_check_sees_textual_when_a_module_loads_it():
    report = import_in_fresh_interpreter([*HEADLESS[:3], "swetui.ui.app"], "textual")
    assert report["first"] == "swetui.ui.app"


def test_providers_import_neither_engine_nor_agent():
    providers = modules_under("providers")
    assert len(providers) > 10
    report = import_in_fresh_interpreter(providers, "swetui.engine,swetui.agent")
    assert report["first"] is None, f"importing {report['first']} loaded the engine or agent"
    assert set(providers) <= set(report["loaded"])
    control = import_in_fresh_interpreter([*providers, "swetui.engine.items"],
                                          "swetui.engine,swetui.agent")
    assert control["first"] == "swetui.engine.items"
