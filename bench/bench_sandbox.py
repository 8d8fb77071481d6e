"""What the sandbox costs a command: `true` run plainly (the baseline, same run), through the
supervisor unconfined, and confined in workspaces of 100, 1,000 and 10,000 files (the
helper walks the workspace for secret files and nested `.git/` to cover)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.common import entry
from swetui.agent.sandbox import Sandbox, probe
from swetui.agent.tools.shell import run_command

RUNS = 8
SIZES = (100, 1_000, 10_000)
TARGET_CONFINED = 0.5
"""Seconds a confined `true` may take at 10,000 files (median)."""


def make_workspace(root: Path, files: int) -> Path:
    for index in range(files):
        directory = root / f"pkg{index // 100}" / f"sub{index // 20 % 5}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"mod{index}.py").write_text(f"value = {index}\n")
    (root / ".env").write_text("TOKEN=x\n")
    (root / ".git").mkdir()
    return root


async def _median(root: Path, sandbox: Sandbox | None, confine: bool) -> float:
    loop = asyncio.get_running_loop()
    await run_command("true", str(root), 30, sandbox=sandbox, confine=confine)  # warm
    samples = []
    for _ in range(RUNS):
        started = loop.time()
        result = await run_command("true", str(root), 30, sandbox=sandbox, confine=confine)
        samples.append(loop.time() - started)
        assert result.data.get("exit_code") == 0, result.content
    return statistics.median(samples)


async def _measure(base: Path) -> list[dict[str, Any]]:
    small = make_workspace(base / "plain", 10)
    plain = await _median(small, None, False)
    unconfined = await _median(small, Sandbox(small), False)
    entries = [entry("command, unconfined supervisor", unconfined, "s", baseline=plain,
                     ratio=unconfined / plain, target="(baseline: bash -c true)",
                     passed=True)]
    if not probe().available:
        return entries
    for size in SIZES:
        root = make_workspace(base / f"ws{size}", size)
        sandbox = Sandbox(root)
        confined = await _median(root, sandbox, True)
        sandbox.close()
        entries.append(entry(f"command, confined, {size:,} files", confined, "s",
                             baseline=plain, ratio=confined / plain,
                             target=f"<= {TARGET_CONFINED} s at 10,000 files",
                             passed=size != SIZES[-1] or confined <= TARGET_CONFINED))
    return entries


def run() -> list[dict[str, Any]]:
    """Entries for `python -m bench`."""
    with tempfile.TemporaryDirectory(prefix="swetui-bench-sandbox-") as temp:
        return asyncio.run(_measure(Path(temp)))


if __name__ == "__main__":
    for line in run():
        print(line)
