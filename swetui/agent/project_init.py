"""Writing SWETUI.md (`swetui init`, `/init`): a structural scan of the workspace, handed to
the configured model to write from when there is one (offline, or when the model fails, the
scan itself is written). It reports its progress, can be cancelled (nothing is written
then) and never replaces an existing SWETUI.md unless told to."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from swetui.agent.busy import SessionBusy
from swetui.agent.sandbox import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.project_memory import MAX_TOKENS, Cancelled, build_project_memory
from swetui.engine.project_scan import Progress
from swetui.engine.sources import memory_items
from swetui.engine.tokens import TokenCounter
from swetui.files import atomic_write
from swetui.messages import ChatRequest, Message
from swetui.providers.base import Provider
from swetui.providers.events import StreamError, TextDelta
from swetui.secrets import redact

INIT_PROMPT = """\
You write SWETUI.md, the project memory a coding agent reads at the start of every request
in this repository. From the structural scan the user sends (it is all you know: never
invent files, commands or facts it does not show), write Markdown of 2,000 to 3,000 tokens
with these sections: Overview (what the project is, in whole sentences), Structure (the
folders and what lives where), Key files (one line each), Entry points and scripts, How to
install, test and lint, Patterns and conventions, Dependencies. Answer with the file's
content only, starting with a `# ` title."""


class MemoryExists(FileExistsError):
    """SWETUI.md is there and replacing it was not asked for."""


class ModelFailed(RuntimeError):
    """The model could not write the file (its stream failed, or it answered nothing)."""


@dataclass(frozen=True)
class InitOutcome:
    path: Path
    tokens: int
    written_by: str
    """"a structural scan" or the model's spec."""
    note: str | None = None
    """Why the model's text was not used, when it was asked."""


def _fit(text: str, limit: int = MAX_TOKENS + MAX_TOKENS // 10) -> str:
    """The model's answer without a code fence around it, cut at a line within `limit`."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[-1].rsplit("```", 1)[0].strip()
    counter = TokenCounter()
    lines = body.splitlines()
    while lines and counter.count("\n".join(lines)) > limit:
        del lines[-max(1, len(lines) // 20):]
    return "\n".join(lines) + "\n"


async def from_model(provider: Provider, model: str, scan: str, progress: Progress) -> str:
    """SWETUI.md as the model writes it from `scan`."""
    request = ChatRequest(model=model, system=INIT_PROMPT, max_tokens=4096,
                          messages=(Message(role="user", content=scan),))
    parts: list[str] = []
    async for event in provider.stream(request):
        if isinstance(event, TextDelta):
            parts.append(event.text)
            if len(parts) % 50 == 0:
                progress(f"{model} is writing it: {sum(map(len, parts)):,} characters")
        elif isinstance(event, StreamError):
            raise ModelFailed(event.message)
    text = "".join(parts)
    if not text.strip():
        raise ModelFailed("it answered nothing")
    return _fit(text)


async def write_project_memory(root: Path, *, progress: Progress, replace: bool = False,
                               model: str = "offline", provider: Provider | None = None,
                               stop: threading.Event | None = None) -> InitOutcome:
    """Scan, have the model write from the scan (when there is one), write SWETUI.md.
    Raises MemoryExists, Cancelled (when `stop` is set: nothing written) or OSError."""
    target = root / "SWETUI.md"
    if os.path.lexists(target) and not replace:
        raise MemoryExists(f"{target} exists")

    stop = stop or threading.Event()

    def report(message: str) -> None:
        if stop.is_set():
            raise Cancelled
        progress(message)

    try:
        scan = await asyncio.to_thread(build_project_memory, root, report, None,
                                       secret_files(root))
    except asyncio.CancelledError:
        stop.set()  # the scan's thread stops at its next step
        raise
    text, written_by, note = scan, "a structural scan", None
    if provider is not None and model != "offline":
        report(f"asking {model} to write it from the scan")
        try:
            text = redact(await from_model(provider, model, scan, report))
            written_by = model
        except ModelFailed as exc:
            note = f"{model} could not write it ({exc}): the structural scan was written"
    report("writing SWETUI.md")
    # atomic: a link named SWETUI.md is replaced, never written through
    atomic_write(target, text.encode("utf-8"))
    return InitOutcome(target, TokenCounter().count(text), written_by, note)


class ProjectMemoryWriter:
    """A session's `/init`: one write at a time, by its working model, cancellable; the new
    SWETUI.md goes into the memory layer."""

    def __init__(self, engine: ContextEngine, root: Path,
                 working: Callable[[], tuple[str, Provider]]) -> None:
        self.engine = engine
        self.root = root
        self.working = working
        self.task: asyncio.Task[InitOutcome] | None = None

    @property
    def running(self) -> bool:
        return self.task is not None

    def cancel(self) -> bool:
        if self.task is None:
            return False
        self.task.cancel()
        return True

    async def write(self, *, replace: bool = False, progress: Progress | None = None,
                    busy: bool = False) -> InitOutcome:
        """Write SWETUI.md and load it as memory. `progress` hears each step on the event
        loop; `cancel()` stops it (Cancelled, nothing written). Raises MemoryExists unless
        `replace`, SessionBusy when `busy` (a turn runs)."""
        if busy:
            raise SessionBusy("the agent is working: /init when the turn has ended")
        loop = asyncio.get_running_loop()
        told = progress or (lambda _: None)

        def on_loop(message: str) -> None:  # the scan runs in a thread
            loop.call_soon_threadsafe(told, message)

        model, provider = self.working()
        self.task = task = asyncio.create_task(write_project_memory(
            self.root, progress=on_loop, replace=replace, model=model, provider=provider))
        try:
            outcome = await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and not (current and current.cancelling()):
                raise Cancelled from None  # our cancel(), not our caller's
            raise
        finally:
            self.task = None
        for item in memory_items(self.root, secrets=secret_files(self.root))[0]:
            if item.id != "mem:SWETUI.md":
                continue
            if item.id in self.engine:
                self.engine.set_content(item.id, item.content, reason="project memory written")
            else:
                self.engine.add(item, reason="project memory written")
        return outcome
