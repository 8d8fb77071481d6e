"""A headless command (`swetui context`, `trust`, `rules`, `init`, `sessions`) called through
the command line's `main` in the test's own process.

What it prints and returns is what `python -m swetui ...` gives, without a Python start-up
and the tokenizer's load for each call (about 0.6 s of CPU each, which a suite of a few
hundred such calls feels). Use a real process where the process is the point: a run end to
end, a terminal on stdin, a signal, a call that must not hang (a timeout bounds only a
process), or what is imported at start-up."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from swetui.cli import main


def call_main(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`swetui ARGS` with stdin not a terminal (as `</dev/null`), its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with (contextlib.chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err), pytest.MonkeyPatch.context() as patch):
        patch.setattr(sys, "stdin", io.StringIO())
        code = main(list(args))
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())
