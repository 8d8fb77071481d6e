"""Loaded before pytest's other plugins (addopts: `-p tests.keep_bytecode`): pytest keeps the
modules it rewrote for their asserts as bytecode, unless Python is told not to write any
(PYTHONDONTWRITEBYTECODE, set on this development machine and its CI). Then every pytest
process of every run rewrites them all again: the test modules (~180, 4-5 s of CPU a worker)
and, before any conftest is read, the modules of the plugins pytest loads (hypothesis,
syrupy, xdist, anyio: 160 modules, 1 s of CPU a process, 5 processes a run). Nothing else is
written but their bytecode (`__pycache__/`, in the checkout and in its own .venv)."""

from __future__ import annotations

import sys

sys.dont_write_bytecode = False
