"""A process of the same user cannot scrape a key out of swetui's memory: once it holds keys,
swetui marks itself not dumpable, so `/proc/<swetui>/mem` and `environ` are closed to an
unconfined command. (Root keeps CAP_SYS_PTRACE: only the kernel sandbox stops root.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PLANTED

ROOT = Path(__file__).resolve().parents[1]

SCRAPER = r"""
import re, sys
pid = int(sys.argv[1])
try:
    environ = open(f"/proc/{pid}/environ", "rb").read()
    print("environ: readable")
except PermissionError:
    print("environ: denied")
found = False
try:
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if "r" not in perms:
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(start)
                found = found or b"PLANTED-anthropic" in mem.read(end - start)
            except (OSError, ValueError, OverflowError):
                pass
    print("mem: key found" if found else "mem: read, no key")
except PermissionError:
    print("mem: denied")
"""

SWETUI = r"""
import os, subprocess, sys
from swetui.handover import start
from swetui.secrets import STORE
start()  # re-executes this very script without the keys in its environment
assert STORE.get("ANTHROPIC_API_KEY"), "the key was not handed over"
held = [STORE.get("ANTHROPIC_API_KEY")]  # in memory, as the provider holds it
print(subprocess.run([sys.executable, "-c", sys.argv[1], str(os.getpid())],
                     capture_output=True, text=True).stdout, end="")
"""


def as_other_user() -> list[str]:
    """Run as `nobody` when the suite runs as root (root could read anything), with the
    system Python (the suite's may live under root's home)."""
    if os.geteuid() != 0:
        return [sys.executable]
    python = "/usr/bin/python3"
    if shutil.which("setpriv") is None or not os.access(python, os.X_OK):
        pytest.skip("running as root without setpriv or a system python to drop to nobody")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python]


def test_an_unconfined_command_cannot_read_swetuis_memory():
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
           "ANTHROPIC_API_KEY": PLANTED["ANTHROPIC_API_KEY"]}
    result = subprocess.run([*as_other_user(), "-c", SWETUI, SCRAPER], capture_output=True,
                            text=True, cwd="/", env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "mem: denied" in result.stdout, result.stdout
    assert "environ: denied" in result.stdout, result.stdout
