"""Run swetui and SIGKILL it at an exact point, found through Python's audit events.

    python -m tests.faults.kill_at STEPS -- SWETUI-ARGS...

STEPS is `event:text[,event:text...]`: the process kills itself (SIGKILL, nothing runs after)
when the last step's audit event fires, each step counting only after the one before it,
with `text` found in the event's arguments. `os.rename:.app.py.swetui-` dies just before
an edit's temp file replaces the file; `os.rename:.app.py.swetui-,open:` just after.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


def install(spec: str) -> None:
    steps = [tuple(step.split(":", 1)) for step in spec.split(",")]
    done = 0

    def hook(event: str, args: tuple[Any, ...]) -> None:
        nonlocal done
        if done == len(steps):  # os.kill raises an audit event of its own
            return
        name, text = steps[done]
        if event == name and text in " ".join(map(str, args)):
            done += 1
            if done == len(steps):
                os.kill(os.getpid(), signal.SIGKILL)

    sys.addaudithook(hook)


if __name__ == "__main__":
    spec, separator, *arguments = sys.argv[1:]
    assert separator == "--", "usage: kill_at STEPS -- SWETUI-ARGS"
    from swetui.cli import main

    install(spec)
    raise SystemExit(main(arguments))
