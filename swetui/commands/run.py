"""`swetui run PROMPT [PATH]`: one turn headless, streamed to stdout.

Writes and commands are denied (and reported) unless `--yes`; protected actions (under
`.git/`, `.env*`, keys, dangerous commands) are denied even then: they need a person's eyes
in the full-screen workspace. Approvals left pending by a process that ended (`--continue`,
`--resume`) are reported on stderr and decided the same way before the new prompt is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TextIO

from pydantic import BaseModel

from swetui.agent import (
    AgentSession,
    AnswerChunk,
    ApprovalRequested,
    CompactionNotice,
    PendingAction,
    PlanChanged,
    ReasoningChunk,
    RetrievalDone,
    Session,
    SessionLimit,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    Usage,
    format_cost,
    protection,
    tool_icon,
    usage_line,
)
from swetui.engine.events import EngineNotice
from swetui.interrupts import EXIT_INTERRUPTED, run_interruptibly
from swetui.options import LaunchOptions
from swetui.providers import ProviderConfigError
from swetui.text import one_line, terminal_safe


def warn(message: str) -> None:
    """`swetui: message` on stderr, control characters made visible."""
    print(f"swetui: {terminal_safe(message)}", file=sys.stderr)

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SPENDING_CAP = 3
"""A model call was not sent: it would have taken the session past its spending cap."""


class Printer:
    """Writes turn events as a readable stream; dim and colour only on a terminal."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.section: str | None = None
        self.closed = False
        """Set when the reader went away (`swetui run … | head`): the turn goes on quietly."""

    def style(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.tty else text

    def enter(self, section: str) -> None:
        if self.section != section:
            if self.section is not None:
                self.out.write("\n")
            self.section = section

    def __call__(self, event: BaseModel) -> None:
        if self.closed:
            return
        try:
            self._write(event)
        except BrokenPipeError:
            self.reader_gone()

    def reader_gone(self) -> None:
        """The reader closed the pipe: print nothing more, and send what is still buffered
        nowhere (else Python fails to flush it at exit: a warning and exit status 120)."""
        self.closed = True
        with contextlib.suppress(OSError, ValueError):  # not a real file (a test's StringIO)
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self.out.fileno())
            finally:
                os.close(devnull)

    def _write(self, event: BaseModel) -> None:
        # Everything from the model, a tool or a file name goes through `terminal_safe`: control
        # characters are shown as escapes, never sent to the terminal raw.
        out = self.out
        if isinstance(event, ReasoningChunk):
            if self.section != "reasoning":
                self.enter("reasoning")
                out.write(self.style("thinking: ", "2"))
            out.write(self.style(terminal_safe(event.text), "2"))
        elif isinstance(event, AnswerChunk):
            self.enter("answer")
            out.write(terminal_safe(event.text))
        elif isinstance(event, ToolCallStarted):
            self.enter("tool")
            arguments = json.dumps(event.arguments, ensure_ascii=False)
            if len(arguments) > 100:
                arguments = arguments[:99] + "…"
            out.write(f"{tool_icon(event.name)} {one_line(event.name)} {one_line(arguments)}\n")
        elif isinstance(event, ToolCallFinished):
            self.enter("tool")
            mark = self.style("✗", "31") if event.is_error else self.style("✓", "32")
            out.write(f"   {mark} {one_line(event.summary)}\n")
        elif isinstance(event, RetrievalDone) and (event.item_ids or event.notes):
            self.enter("tool")
            out.write(self.style(f"{one_line(event.line())}\n", "2"))
        elif isinstance(event, CompactionNotice):
            self.enter("tool")
            out.write(self.style(f"compaction: {one_line(event.message)}\n", "33"))
        elif isinstance(event, EngineNotice) and event.level == "info":
            self.enter("tool")
            out.write(self.style(f"note: {one_line(event.message)}\n", "2"))
        elif isinstance(event, PlanChanged):
            self.enter("tool")
            out.write(self.style(f"{one_line(event.line())}\n", "2"))
        elif isinstance(event, SessionLimit):
            self.enter("tool")
            label = "chunk" if event.kind == "chunk" else "limit"
            out.write(self.style(f"{label}: {one_line(event.message)}\n", "33"))
        out.flush()

    def finish(self, finished: TurnFinished) -> None:
        if self.closed:
            return
        self.enter("end")
        state = "interrupted" if finished.interrupted else "failed" if finished.error else "done"
        usage = finished.usage or Usage(input_tokens=finished.input_tokens,
                                        output_tokens=finished.output_tokens)
        line = f"{state} in {finished.duration:.1f}s · {usage_line(usage)}"
        if finished.cost is not None:
            line += f" · {format_cost(finished.cost)}"
        self.out.write(self.style(line, "2") + "\n")
        self.out.flush()


def headless_verdict(action: PendingAction, yes: bool) -> str | None:
    """Why a headless run denies `action`, or None when it approves it: --yes approves,
    protected actions never."""
    # Recomputed from the action itself, never trusted from a stored flag.
    reason = protection(action)
    if reason:
        return f"protected action ({reason}): it needs approval in the full-screen workspace"
    if yes:
        return None
    return "not approved: this was a headless run without --yes"


def describe_action(action: PendingAction) -> str:
    """What an action does, in one line (repr keeps control characters from the terminal)."""
    if action.kind == "bash":
        return f"command {action.command or ''!r}"
    if action.kind == "mcp":
        return f"MCP call {action.call.name!r}"
    return f"{action.kind} {action.path or ''!r}"


def _decide(session: Session, action: PendingAction, yes: bool) -> str | None:
    denial = headless_verdict(action, yes)
    if denial is None:
        session.queue.approve(action.id)
    else:
        session.queue.deny(action.id, denial)
    return denial


def _auto_decide(session: Session, yes: bool) -> Callable[[BaseModel], None]:
    """Answer approvals for a headless run: --yes approves, protected actions never."""

    def decide(event: BaseModel) -> None:
        if not isinstance(event, ApprovalRequested):
            return
        action = event.action

        def resolve() -> None:
            if action.id in {pending.id for pending in session.queue.pending()}:
                _decide(session, action, yes)

        asyncio.get_running_loop().call_soon(resolve)

    return decide


async def _settle_restored(session: Session, yes: bool) -> None:
    """Approvals left pending by a process that ended are reported, decided like new ones
    and carried out before the new prompt, so the model sees their outcome first."""
    if not session.restored:
        return
    approved: set[str] = set()
    for action in session.restored:
        warn(f"pending approval from the last run: {describe_action(action)}")
        # A deny rule may have decided it already; otherwise it is decided like a new one.
        if action.id in session.queue and _decide(session, action, yes) is None:
            approved.add(action.id)
    session.start()
    for action, result in await session.restored_outcomes():
        outcome = f"approved (--yes): {result.summary}" if action.id in approved \
            else result.summary
        warn(f"  {describe_action(action)}: {outcome}")


async def _run(options: LaunchOptions, prompt: str, out: TextIO) -> int:
    session: Session = AgentSession.open(options)
    sandbox = await asyncio.to_thread(session.sandbox_notice)
    for notice in [*session.notices, *([sandbox] if sandbox else [])]:
        warn(notice)
    printer = Printer(out)
    session.bus.subscribe(printer)
    session.bus.subscribe(_auto_decide(session, options.yes), ApprovalRequested)
    try:
        await _settle_restored(session, options.yes)
        session.start()
        finished = await session.send(prompt)
    finally:
        await session.aclose()
    try:
        printer.finish(finished)
    except BrokenPipeError:
        printer.reader_gone()
    if finished.error:
        warn(finished.error)
        return EXIT_SPENDING_CAP if session.spending.stopped is not None else EXIT_FAILED
    if finished.interrupted:  # ctrl+c: the turn was closed cleanly, but it did not finish
        print("swetui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def run_once(options: LaunchOptions, prompt: str, out: TextIO | None = None) -> int:
    """Run one turn; the first ctrl+c interrupts it (exit 130 once it has closed), a second
    one ends swetui at once, even when a worker thread is stuck."""
    if not prompt.strip():
        print("swetui: the prompt is empty", file=sys.stderr)
        return EXIT_USAGE
    try:
        options = replace(options, origin="run")
        return run_interruptibly(_run(options, prompt, out or sys.stdout),
                                 notice="swetui: interrupting… (ctrl+c again quits at once)")
    except asyncio.CancelledError:  # interrupted before the turn began
        print("swetui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader closed early; keep Python from complaining again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ProviderConfigError as exc:
        warn(str(exc))
        return EXIT_USAGE
