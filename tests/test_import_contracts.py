"""The layers of DESIGN.md §1 are a contract (`[tool.importlinter]` in pyproject.toml) that
`lint-imports` checks: ui → agent → engine, agent → providers, nothing below imports the UI,
the commands or the CLI, the UI and the commands reach the agent only through its public API,
and the headless packages never import Textual."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = ("import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())")


def lint_imports(checkout: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` run in `checkout` against its own copy of swetui (first on the path)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    return subprocess.run([sys.executable, "-c", LINT, "--no-cache", "--no-logo"], cwd=checkout,
                          env=env, capture_output=True, text=True)


def contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]


def test_the_import_contracts_are_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(contracts())} kept, 0 broken." in result.stdout


LAYERS = "cli above ui and commands, above agent, above engine and providers"
FRONT_ENDS = "nothing below imports the UI, the commands or the CLI"
HEADLESS = "the engine, the agent and the providers never import Textual"
ACYCLIC = "no import cycles between the modules or packages of one package"
AGENT_API = "the UI and the commands use only the agent's public API"


@pytest.mark.parametrize(("module", "planted", "broken"), [
    # The UI imports Textual, so the engine importing it also breaks "headless"; and the UI
    # imports the engine, so it closes a loop between swetui's packages too.
    ("engine/tokens.py", "import swetui.ui.bridge", {LAYERS, FRONT_ENDS, HEADLESS, ACYCLIC}),
    ("providers/sse.py", "import swetui.engine.items", {LAYERS}),
    ("agent/notes.py", "import swetui.commands.context", {LAYERS, FRONT_ENDS, ACYCLIC}),
    # The engine imports config, so this also puts a chain from the engine up to the commands.
    ("config.py", "import swetui.commands.init", {LAYERS, FRONT_ENDS, ACYCLIC}),
    ("agent/diffs.py", "import textual.widget", {HEADLESS}),
    # The UI and the commands use the agent's public API, never its modules.
    ("ui/widgets/diff_view.py", "import swetui.agent.diffs", {AGENT_API}),
    ("commands/run.py", "from swetui.agent.policy import protection", {AGENT_API}),
    ("ui/screens/main.py", "from swetui.agent.tools.workspace import WorkspaceFiles", {AGENT_API}),
])
def test_a_planted_import_breaks_its_contract(tmp_path, module, planted, broken):
    shutil.copytree(ROOT / "swetui", tmp_path / "swetui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "swetui" / module
    # Inside a function, where a reviewer is least likely to see it.
    target.write_text(target.read_text(encoding="utf-8")
                      + f"\n\ndef _planted() -> None:\n    {planted}\n", encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    reported = {line.removesuffix(" BROKEN") for line in result.stdout.splitlines()
                if line.endswith(" BROKEN")}
    assert reported == broken, result.stdout
    planted_in = "swetui." + module.removesuffix(".py").replace("/", ".")
    assert planted_in in result.stdout, result.stdout


def test_the_agent_api_is_open_to_the_ui(tmp_path):
    """The control of the AGENT_API cases: the public API itself stays allowed."""
    shutil.copytree(ROOT / "swetui", tmp_path / "swetui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "swetui" / "ui" / "widgets" / "diff_view.py"
    target.write_text(target.read_text(encoding="utf-8") + "\n\ndef _planted() -> None:\n"
                      "    import swetui.agent.api\n    import swetui.agent\n", encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode == 0, result.stdout


def test_every_top_level_module_is_named_by_a_contract():
    named: set[str] = set()
    for contract in contracts():
        for key in ("layers", "source_modules", "forbidden_modules"):
            for entry in contract.get(key, []):
                named.update(part.strip() for part in str(entry).split("|"))
    package = ROOT / "swetui"
    top_level = {f"swetui.{p.stem}" for p in package.glob("*.py") if p.name != "__init__.py"}
    top_level |= {f"swetui.{p.parent.name}" for p in package.glob("*/__init__.py")}
    assert top_level - named == set(), "add these modules to [tool.importlinter] in pyproject.toml"


def test_the_contracts_see_every_module():
    """A folder without `__init__.py` is a namespace package: grimp (so every contract above)
    and the wheel's package list would both leave its modules out."""
    graph = grimp.build_graph("swetui", cache_dir=None)
    on_disk = set()
    for path in (ROOT / "swetui").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        on_disk.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert on_disk - set(graph.modules) == set(), "add an __init__.py to their folders"
