"""`swetui init [PATH]`: write SWETUI.md, with the model when one is configured (else, or
when it fails, the structural scan). Progress goes to stderr; ctrl+c cancels (nothing is
written); an existing SWETUI.md is replaced only when you say so: `--force`, or `y` when
asked on a terminal."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable

from swetui.agent import MemoryExists, write_project_memory
from swetui.engine.project_memory import Cancelled
from swetui.interrupts import EXIT_INTERRUPTED, run_interruptibly
from swetui.options import LaunchOptions, settings_for
from swetui.providers.base import Provider
from swetui.providers.errors import ProviderConfigError
from swetui.providers.registry import create_provider, resolve_model
from swetui.secrets import STORE
from swetui.text import terminal_safe

Ask = Callable[[str], bool]


def ask_on_terminal(question: str) -> bool:
    """`question` on stderr, the answer from stdin: only `y` or `yes` says yes."""
    print(question, end=" ", file=sys.stderr, flush=True)
    try:
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    except (OSError, ValueError):
        return False


def _progress(message: str) -> None:
    print(f"swetui init: {terminal_safe(message, newlines=False)}", file=sys.stderr,
          flush=True)


def init_memory_file(options: LaunchOptions, *, force: bool = False,
                     ask: Ask | None = None) -> int:
    """Write SWETUI.md; 0 when written, 1 when not (it exists, it cannot be written),
    2 for a bad model, 130 when cancelled."""
    root, settings = settings_for(options)
    target = root / "SWETUI.md"
    shown = terminal_safe(str(target))
    if target.exists() or target.is_symlink():
        if force:
            pass
        elif ask is not None and ask(f"{shown} exists. Replace it? [y/N]"):
            force = True
        else:
            print(f"swetui: {shown} exists; left as it is (--force replaces it)",
                  file=sys.stderr)
            return 1
    env = STORE.environment()
    provider: Provider | None = None
    try:
        model = resolve_model(options.model, env, settings.model)
        if model != "offline":
            provider = create_provider(model, env, timeout=settings.request_timeout)
    except ProviderConfigError as exc:
        print(f"swetui: {exc}", file=sys.stderr)
        return 2

    async def main() -> int:
        try:
            outcome = await write_project_memory(root, progress=_progress, replace=force,
                                                 model=model, provider=provider)
        finally:
            if provider is not None:
                await provider.aclose()
        if outcome.note:
            print(f"swetui: {terminal_safe(outcome.note)}", file=sys.stderr)
        print(f"Wrote {shown} ({outcome.tokens:,} tokens, from {outcome.written_by})")
        return 0

    try:
        return run_interruptibly(main(), notice="swetui: cancelling… (ctrl+c again quits)")
    except (asyncio.CancelledError, Cancelled):
        print(f"swetui: cancelled; {shown} was not written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryExists:
        print(f"swetui: {shown} appeared meanwhile; left as it is", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"swetui: cannot write {shown}: {exc.strerror or exc}", file=sys.stderr)
        return 1
