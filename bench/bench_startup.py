"""Start-up: from launching `python` to the workspace's first frame on a 10,000-file
workspace (target ≤ 1.5 s), and `swetui --version` (target ≤ 0.3 s).

Each figure is the median of a few fresh processes. Baselines from the same run: a bare
Textual app's first frame, and `python -c pass`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import entry

FILES = 10_000
RUNS = 3
TARGET_FIRST_FRAME = 1.5
TARGET_VERSION = 0.3

_FIRST_FRAME = r"""
import sys, time
start = float(sys.argv[2])
from pathlib import Path
from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.screens.main import WorkspaceScreen

class Probe(SweTuiApp):
    def on_mount(self) -> None:  # runs after SweTuiApp.on_mount has pushed the screen
        self.check()

    def check(self) -> None:
        if isinstance(self.screen, WorkspaceScreen) and self.screen.is_mounted:
            self.screen.call_after_refresh(self.done)
        else:
            self.set_timer(0.005, self.check)

    def done(self) -> None:
        print(time.time() - start)
        self.exit()

options = LaunchOptions(path=Path(sys.argv[1]), model="offline")
Probe(AgentSession.open(options, env={}), options=options, watch=True).run(
    headless=True, size=(160, 48))
"""

_BARE = r"""
import sys, time
start = float(sys.argv[2])
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("hello")

    def on_mount(self) -> None:
        self.call_after_refresh(self.done)

    def done(self) -> None:
        print(time.time() - start)
        self.exit()

Bare().run(headless=True, size=(160, 48))
"""


def make_workspace(root: Path, files: int = FILES) -> Path:
    """A workspace of `files` small source files in 100 directories."""
    per_dir = 100
    for index in range(files):
        directory = root / f"pkg{index // per_dir:03d}"
        if index % per_dir == 0:
            directory.mkdir(parents=True, exist_ok=True)
        (directory / f"module_{index:05d}.py").write_text(
            f"def handler_{index}(event):\n    return event.value + {index}\n")
    (root / "README.md").write_text("# Big\n\nA workspace of ten thousand files.\n")
    return root


def _env(config: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SWETUI_MODEL")}
    env["XDG_CONFIG_HOME"] = str(config)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


def _probe(script: Path, workspace: Path, env: dict[str, str]) -> float:
    result = subprocess.run([sys.executable, str(script), str(workspace), repr(time.time())],
                            capture_output=True, text=True, env=env, timeout=60)
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"start-up probe failed: {result.stderr[-2000:]}")
    return float(lines[-1])


def _wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, env=env, timeout=30, check=True)
    return time.perf_counter() - start


def run(runs: int = RUNS) -> list[dict[str, Any]]:
    """Entries for `python -m bench`."""
    with tempfile.TemporaryDirectory(prefix="swetui-startup-") as temp:
        base = Path(temp)
        workspace = make_workspace(base / "workspace")
        env = _env(base / "xdg")
        first_frame, bare_app = base / "first_frame.py", base / "bare_app.py"
        first_frame.write_text(_FIRST_FRAME)
        bare_app.write_text(_BARE)
        _probe(first_frame, workspace, env)  # warm the OS file cache and .pyc files
        ours = statistics.median(_probe(first_frame, workspace, env) for _ in range(runs))
        bare = statistics.median(_probe(bare_app, workspace, env) for _ in range(runs))
        version = statistics.median(_wall([sys.executable, "-m", "swetui", "--version"], env)
                                    for _ in range(runs + 2))
        python = statistics.median(_wall([sys.executable, "-c", "pass"], env)
                                   for _ in range(runs + 2))
    return [
        entry("start-up to first frame (10k files)", ours, "s", baseline=bare,
              ratio=ours / bare, target=f"<= {TARGET_FIRST_FRAME} s (baseline: bare Textual app)",
              passed=ours <= TARGET_FIRST_FRAME),
        entry("swetui --version", version, "s", baseline=python, ratio=version / python,
              target=f"<= {TARGET_VERSION} s (baseline: python -c pass)",
              passed=version <= TARGET_VERSION),
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
