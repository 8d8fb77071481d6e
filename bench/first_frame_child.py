"""swetui's screen opened on a workspace in a fresh process, headless, with the symbol map
as the user's config sets it: `python -m bench.first_frame_child ROOT START` prints one JSON
object (seconds since START, the parent's `time.time()` when it launched the process):

- `frame`: the workspace screen's first frame is painted (`app_frame`: the same, counted
  from the app's start, after the imports, which vary most on a loaded machine);
- `echo`: a key sent right after that frame shows in the prompt (the prompt accepts input);
- `keys_p90` / `keys_max`: the same for the next keys, one every 20 ms (what typing feels
  like while the map builds), seconds from each key to its echo.

The process ends at once after (`os._exit`): a build still running in a worker thread would
keep a normal exit waiting for it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from textual import events

from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.screens.main import WorkspaceScreen
from swetui.ui.widgets.prompt import PromptInput

KEYS = 30
GAP = 0.020
POLL = 0.001


class Probe(SweTuiApp):
    """The app, timing its first frame and its prompt's echo of keys."""

    start = 0.0
    app_start = 0.0
    found: dict[str, float]
    latencies: list[float]

    def on_mount(self) -> None:  # runs after SweTuiApp.on_mount has pushed the screen
        self.found, self.latencies = {}, []
        self._check_screen()

    def _check_screen(self) -> None:
        if isinstance(self.screen, WorkspaceScreen) and self.screen.is_mounted:
            self.screen.call_after_refresh(self._framed)
        else:
            self.set_timer(POLL, self._check_screen)

    def _framed(self) -> None:
        self.found["frame"] = time.time() - self.start
        self.found["app_frame"] = time.perf_counter() - self.app_start
        self._send()

    def _send(self) -> None:
        prompt = self.screen.query_one(PromptInput)
        typed = len(prompt.text)
        sent = time.perf_counter()
        self.post_message(events.Key("x", "x"))
        self._wait_echo(prompt, typed, sent)

    def _wait_echo(self, prompt: PromptInput, typed: int, sent: float) -> None:
        if len(prompt.text) <= typed:
            self.set_timer(POLL, lambda: self._wait_echo(prompt, typed, sent))
            return
        if "echo" not in self.found:
            self.found["echo"] = time.time() - self.start
        else:
            self.latencies.append(time.perf_counter() - sent)
        if len(self.latencies) < KEYS:
            self.set_timer(GAP, self._send)
            return
        ordered = sorted(self.latencies)
        self.found["keys_p90"] = ordered[int(0.9 * (len(ordered) - 1))]
        self.found["keys_max"] = ordered[-1]
        print(json.dumps(self.found), flush=True)
        os._exit(0)


def main(root: Path, start: float) -> None:
    options = LaunchOptions(path=root, model="offline")
    Probe.start, Probe.app_start = start, time.perf_counter()
    Probe(AgentSession.open(options, env={}), options=options, watch=True).run(
        headless=True, size=(160, 48))


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]))
