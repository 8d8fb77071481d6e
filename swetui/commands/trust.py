"""`swetui trust [PATH] [--yes | --list | --revoke]`: review and trust what a repository ships.

A workspace's `.swetui/config.toml` and `.mcp.json` apply only once trusted; this shows
every effect they would have and records trust (by path and content hash) when confirmed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from swetui.engine.workspace import check_workspace
from swetui.trust import TrustError, TrustState, TrustStore, digest_of, read_shipped
from swetui.trust_review import review, trust_reviewed, visible

EXIT_NOT_TRUSTED = 1


def describe(state: TrustState, out: TextIO) -> None:
    """Every shipped file of the workspace, its state and what it would change."""
    if state.store_problem:
        out.write(f"! trust store unusable: {visible(state.store_problem)}\n")
    if not state.files:
        out.write(f"{visible(str(state.root))} ships no .swetui/config.toml or .mcp.json: "
                  "nothing to trust.\n")
        return
    out.write(f"{visible(str(state.root))} ships:\n")
    for shipped in state.files:
        found = review(shipped)
        mark = "trusted" if shipped.trusted else \
            "cannot be trusted" if found.error else "NOT trusted"
        out.write(f"  {shipped.name}  [{mark}]\n")
        if found.error:
            out.write(f"      {found.error}\n")
        for effect in found.effects:
            out.write(f"      {effect}\n")
        if not found.effects and not found.error:
            out.write(f"      {found.summary}\n")


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        answer = input(question)
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def show_trust(path: Path, *, yes: bool = False, list_all: bool = False,
               revoke: bool = False, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    store = TrustStore()
    try:
        if list_all:
            return _list(store, out)
        root = check_workspace(path)
        if revoke:
            removed = store.revoke(root)
            out.write(f"Forgot the trust of {visible(str(root))}.\n" if removed else
                      f"{visible(str(root))} was not trusted.\n")
            return 0
        return _review(store, root, yes, out)
    except TrustError as exc:
        print(f"swetui: {exc}", file=sys.stderr)
        return EXIT_NOT_TRUSTED


def _review(store: TrustStore, root: Path, yes: bool, out: TextIO) -> int:
    state = store.state(root)
    describe(state, out)
    pending = [shipped for shipped in state.untrusted if not review(shipped).error]
    if not state.untrusted:
        if state.files:
            out.write("Everything it ships is trusted.\n")
        return 0
    if not pending:
        out.write("Nothing here can be trusted as it is; fix the files above first.\n")
        return EXIT_NOT_TRUSTED
    names = ", ".join(shipped.name for shipped in pending)
    if not yes:
        out.flush()
        if not _confirm(f"Trust {names} as shown? [y/N] "):
            out.write(f"Not trusted: swetui keeps ignoring {names}. To trust them: "
                      "swetui trust PATH --yes\n")
            return EXIT_NOT_TRUSTED
    after, refused = trust_reviewed(state, store)
    trusted = [shipped.name for shipped in after.files if shipped.trusted]
    out.write(f"Trusted {', '.join(trusted)} of {visible(str(root))}; a change to "
              "them will ask again.\n")
    return EXIT_NOT_TRUSTED if refused else 0


def _list(store: TrustStore, out: TextIO) -> int:
    entries = store.entries()
    if not entries:
        out.write(f"No trusted workspaces ({store.file}).\n")
        return 0
    out.write(f"Trusted workspaces ({store.file}):\n")
    for key, files in sorted(entries.items()):
        out.write(f"  {visible(key)}\n")
        root = Path(key)
        for name, digest in sorted(files.items()):
            content, problem = read_shipped(root, name) if root.is_dir() else (None, None)
            now = "trusted" if content is not None and digest_of(content) == digest else \
                "changed since: asks again" if content is not None or problem else "missing"
            out.write(f"      {visible(name)}  [{now}]\n")
    out.write("Forget one with: swetui trust PATH --revoke\n")
    return 0
