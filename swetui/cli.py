"""Command line: `swetui [PATH]` and the headless commands `run`, `context`, `init`,
`sessions`, `rules`, `trust` and `mcp`.

Imports of swetui's own modules are made where they are needed, on purpose: so `swetui
--version` answers without loading pydantic, Textual or the tokenizer (DESIGN.md §9: in
0.3 s), each command loads only what it runs, and the key handover (`swetui.handover`) runs
before anything that could read the environment is imported.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from swetui import __version__
from swetui.text import terminal_safe

if TYPE_CHECKING:
    from swetui.options import LaunchOptions

COMMANDS = ("run", "context", "init", "sessions", "rules", "trust", "mcp")
EXIT_USAGE = 2
INFORMATIONAL = frozenset({"--version", "-h", "--help"})
"""Options that print and exit: no session, so no keys to protect and no restart."""


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", metavar="PROVIDER:MODEL",
                        help="model to use: offline, openai:MODEL, anthropic:MODEL, ollama:MODEL")
    parser.add_argument("--mode", choices=("ask", "auto-edit", "auto"),
                        help="approval mode (default: ask)")
    parser.add_argument("--context-limit", type=int, metavar="N",
                        help="the model's context window in tokens (default 256000)")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("--continue", dest="continue_last", action="store_true",
                        help="continue the most recent session of the workspace")
    resume.add_argument("--resume", metavar="ID", help="reopen session ID")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="swetui",
        description="A full-screen terminal workspace for an AI coding agent: see and steer "
                    "its context, approve its edits and commands.",
        epilog="commands: run PROMPT [PATH] · context [PATH] [--json] · init [PATH] · "
               "sessions [PATH] · rules [PATH] · trust [PATH] · mcp [PATH]  "
               "(swetui COMMAND --help for each)",
    )
    parser.add_argument("--version", action="version", version=f"swetui {__version__}")
    parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
    parser.add_argument("--theme", metavar="NAME", help="colour theme")
    _common(parser)
    return parser


def build_command_parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"swetui {command}")
    if command == "run":
        parser.description = ("Run one turn headless: stream the agent's reasoning, actions "
                              "and answer to stdout. Writes and commands are denied unless --yes.")
        parser.add_argument("prompt", help="what to ask the agent")
        parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
        parser.add_argument("--yes", action="store_true",
                            help="approve writes and commands (protected ones still need "
                                 "the full-screen workspace)")
        _common(parser)
    elif command == "context":
        parser.description = "Show what the next request would contain: layers, items, tokens."
        parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
        parser.add_argument("--json", action="store_true", help="print JSON")
        _common(parser)
    elif command == "init":
        parser.description = ("Write SWETUI.md, the project memory the agent reads every turn: "
                              "the configured model writes it from a scan of the workspace "
                              "(offline: the scan itself). Asks before replacing one.")
        parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
        parser.add_argument("--force", action="store_true",
                            help="replace an existing SWETUI.md without asking")
        parser.add_argument("--model", metavar="PROVIDER:MODEL",
                            help="the model that writes it (offline: the structural scan)")
    elif command == "rules":
        parser.description = ("List the workspace's remembered approval rules (allow/deny a "
                              "command prefix or a path glob), or remove one.")
        parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
        parser.add_argument("--remove", type=int, metavar="N", help="remove rule N")
    elif command == "trust":
        parser.description = ("Review what the workspace ships (.swetui/config.toml, "
                              ".mcp.json) and trust it: until then swetui ignores those files "
                              "and uses your own settings. A change to them asks again.")
        parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
        choice = parser.add_mutually_exclusive_group()
        choice.add_argument("--yes", action="store_true",
                            help="trust the files as shown, without asking")
        choice.add_argument("--list", action="store_true", dest="list_all",
                            help="list the trusted workspaces")
        choice.add_argument("--revoke", action="store_true",
                            help="forget the trust of the workspace")
    elif command == "mcp":
        parser.description = ("Start the workspace's MCP servers and list their state, tools "
                               "and token costs (exit status 1 when one did not start).")
        parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
        parser.add_argument("--json", action="store_true", help="print JSON")
    elif command == "sessions":
        parser.description = "List the workspace's sessions (reopen one with --resume ID)."
        parser.add_argument("path", nargs="?", default=".", help="workspace (default: .)")
    return parser


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    print(f"swetui: {terminal_safe(message)}", file=sys.stderr)
    return code


def _options(args: argparse.Namespace) -> LaunchOptions:
    from swetui.options import LaunchOptions

    return LaunchOptions(path=Path(args.path), model=getattr(args, "model", None),
                         mode=getattr(args, "mode", None), theme=getattr(args, "theme", None),
                         context_limit=getattr(args, "context_limit", None),
                         resume=getattr(args, "resume", None),
                         continue_last=getattr(args, "continue_last", False),
                         yes=getattr(args, "yes", False))


def _quiet_logging() -> None:
    """Internal warnings go to the session's notices and logs, not over the user's screen;
    `SWETUI_DEBUG=1` shows them on stderr."""
    logger = logging.getLogger("swetui")
    if os.environ.get("SWETUI_DEBUG"):
        logging.basicConfig(level=logging.DEBUG)
    else:
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def main(argv: list[str] | None = None) -> int:
    if argv is None and ("--" in sys.argv or not INFORMATIONAL & set(sys.argv[1:])):
        # A real start, not a call from Python: keep the keys out of swetui's environment.
        from swetui.handover import start
        from swetui.secrets import STORE

        STORE.notice = start()  # execs itself again when keys are present
    argv = list(sys.argv[1:] if argv is None else argv)
    _quiet_logging()
    try:
        if argv and argv[0] in COMMANDS:
            command = argv.pop(0)
            args = build_command_parser(command).parse_args(argv)
            code = _dispatch(command, args)
            sys.stdout.flush()  # here, where a reader that went away is caught below
            return code
        args = build_parser().parse_args(argv)
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return _fail("the full-screen workspace needs a terminal (its input or output is "
                         'redirected); for a headless run use: swetui run "PROMPT"')
        from swetui.ui.app import run_workspace

        return run_workspace(_options(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`swetui sessions | head -1`): nothing is lost by stopping,
        # and Python must not complain again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except SystemExit as exc:  # argparse's --help / usage errors
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE


def _dispatch(command: str, args: argparse.Namespace) -> int:
    from swetui.config import ConfigError
    from swetui.engine.workspace import WorkspaceError

    try:
        if command == "context":
            from swetui.commands.context import show_context

            return show_context(_options(args), as_json=args.json)
        if command == "init":
            from swetui.commands.init import ask_on_terminal, init_memory_file

            asking = sys.stdin.isatty() and sys.stderr.isatty()
            return init_memory_file(_options(args), force=args.force,
                                    ask=ask_on_terminal if asking else None)
        if command == "rules":
            from swetui.commands.rules import show_rules

            return show_rules(Path(args.path), args.remove)
        if command == "trust":
            from swetui.commands.trust import show_trust

            return show_trust(Path(args.path), yes=args.yes, list_all=args.list_all,
                              revoke=args.revoke)
        if command == "mcp":
            from swetui.commands.mcp import show_mcp

            return show_mcp(_options(args), as_json=args.json)
        if command == "sessions":
            from swetui.commands.sessions import show_sessions

            return show_sessions(Path(args.path))
        from swetui.commands.run import run_once

        return run_once(_options(args), args.prompt)
    except (ConfigError, WorkspaceError) as exc:
        return _fail(str(exc))
