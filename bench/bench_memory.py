"""Resident memory with a 256k-token session (DESIGN §9: at most 250 MB), measured in fresh
processes (`bench.memory_child`): swetui's modules, a realistic 256k-token session in the
context engine and the symbol map of a real project (httpx 0.28.1), then three requests that
describe behaviour, ranked by meaning (the embedding model loaded, as swetui installs it)
against the same run ranked by words only (`rank_by_meaning = false`) as the baseline.
Reported: resident memory at the end and its high-water mark (the peak, loading and
encoding included). The screen's own widgets are not in it: this is the engine's and the
agent's share."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from bench.common import entry

BAR_MB = 250.0


def _child(mode: str) -> dict[str, dict[str, float]]:
    out = subprocess.run([sys.executable, "-m", "bench.memory_child", mode], check=True,
                         capture_output=True, text=True)
    stages: dict[str, dict[str, float]] = json.loads(out.stdout.strip().splitlines()[-1])
    return stages


def run() -> list[dict[str, Any]]:
    """Entries for `python -m bench`."""
    words, meaning = _child("words"), _child("meaning")
    for name, stages in (("words only", words), ("words and meaning", meaning)):
        print(f"memory, {name}: " + ", ".join(
            f"{stage} {m['rss']:.0f} MB (peak {m['peak']:.0f})" for stage, m in stages.items()),
              file=sys.stderr)
    entries = []
    for measure in ("rss", "peak"):
        mine, base = meaning["retrieval"][measure], words["retrieval"][measure]
        entries.append(entry(f"memory with a 256k-token session, {measure}", mine, "MB",
                             baseline=base, ratio=mine / base, target=f"<= {BAR_MB:.0f} MB",
                             passed=mine <= BAR_MB))
    return entries


if __name__ == "__main__":
    for line in run():
        print(line)
